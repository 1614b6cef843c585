import { PublicLayout } from '../components/layout'

/** Join a workspace. */
export function AcceptInvite() {
  return (
    <PublicLayout title="Join a workspace">
      <p>This page is coming in a later version.</p>
    </PublicLayout>
  )
}
