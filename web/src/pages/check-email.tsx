import { PublicLayout } from '../components/layout'

/** Check your email. */
export function CheckEmail() {
  return (
    <PublicLayout title="Check your email">
      <p>This page is coming in a later version.</p>
    </PublicLayout>
  )
}
