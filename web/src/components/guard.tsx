/** Pages that need a signed-in user: loads who it is once, or sends the visitor to sign-in. */
import type { ComponentChildren } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { loadMe } from '../api/auth'
import { me, session } from '../api/session'
import { Layout } from './layout'
import { Button, ErrorBox, Loading } from './ui'

/** Renders `children` inside the layout when signed in; `admin` pages show members a refusal. */
export function Protected({ children, admin }: { children: ComponentChildren; admin?: boolean }) {
  const { url, route } = useLocation()
  const [error, setError] = useState<Error | null>(null)
  const signedIn = session.value !== null
  useEffect(() => {
    if (!signedIn) {
      // A 401 may have sent the tab to sign-in already (client.ts): not again, around its own address.
      if (!url.startsWith('/console/sign-in')) route(`/console/sign-in?next=${encodeURIComponent(url)}`, true)
      return
    }
    if (!me.value) loadMe().catch((e: Error) => setError(e))
  }, [signedIn])
  if (!signedIn) return null
  if (!me.value) {
    return error ? (
      <div class="public">
        <ErrorBox error={error} />
        <Button onClick={() => location.reload()}>Try again</Button>
      </div>
    ) : (
      <Loading />
    )
  }
  if (admin && me.value.role !== 'admin') {
    return (
      <Layout>
        <h1>Not available</h1>
        <p>This page is for workspace admins. Ask an admin of {me.value.workspace_name} if you need it.</p>
      </Layout>
    )
  }
  return <Layout>{children}</Layout>
}
