import { PublicLayout } from '../components/layout'

/** Choose a new password. */
export function ResetPassword() {
  return (
    <PublicLayout title="Choose a new password">
      <p>This page is coming in a later version.</p>
    </PublicLayout>
  )
}
