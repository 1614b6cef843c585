import { PublicLayout } from '../components/layout'

/** Confirm your address. */
export function VerifyEmail() {
  return (
    <PublicLayout title="Confirm your address">
      <p>This page is coming in a later version.</p>
    </PublicLayout>
  )
}
