import { PublicLayout } from '../components/layout'

/** Forgot password. */
export function ForgotPassword() {
  return (
    <PublicLayout title="Forgot password">
      <p>This page is coming in a later version.</p>
    </PublicLayout>
  )
}
