import { PublicLayout } from '../components/layout'

/** Request access. */
export function RequestAccess() {
  return (
    <PublicLayout title="Request access">
      <p>This page is coming in a later version.</p>
    </PublicLayout>
  )
}
