import { useEffect } from 'preact/hooks'
import { useLocation } from 'preact-iso'
import { session } from '../api/session'
import { Loading } from '../components/ui'
import { useAuthConfig } from '../lib/auth-config'

/** `/console/`: the first workspace on a new install, the bases when signed in, else sign-in. */
export function Start() {
  const { route } = useLocation()
  const config = useAuthConfig()
  useEffect(() => {
    if (session.value) route('/console/bases', true)
    else if (config)
      route(config.first_run && config.registration_enabled ? '/console/sign-up' : '/console/sign-in', true)
  }, [config])
  return <Loading />
}
