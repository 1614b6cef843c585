/**
 * The redirect URI the admin registers at the provider, with a copy button: the server answers it
 * before any settings are saved, since registering the application at the provider comes first.
 */
import { useAuthConfig } from '../lib/auth-config'
import { CopyLink } from './copy-link'
import { Note } from './ui'

/** The redirect URI card; `uri` is the settings' `redirect_uri`. */
export function SsoRedirect({ uri }: { uri: string }) {
  const config = useAuthConfig()
  return (
    <div class="card stack">
      <CopyLink label="Redirect URI to register at the provider" value={uri} />
      <p class="hint">Register it as the application&rsquo;s redirect (callback) URI, exactly as written.</p>
      {config && !config.base_url_configured && (
        // The provider sends people's browsers here: a localhost address only works on the server itself.
        <Note kind="warn">
          It starts with <code>{config.link_base_url}</code> because this server has no public address set:
          the provider would send people back to the server&rsquo;s own machine. Whoever runs it sets{' '}
          <code>ENGRAM_BASE_URL</code> to the address people use and restarts it; then register the URI shown
          here.
        </Note>
      )}
    </div>
  )
}
