/**
 * The console's pages. A page is a component in `pages/`; a signed-in page is wrapped in
 * `Protected` (admin pages with `admin`), and its section is listed in `components/layout.tsx`.
 */
import { LocationProvider, Route, Router } from 'preact-iso'
import { Protected } from './components/guard'
import { NotFound } from './pages/not-found'
import { Placeholder } from './pages/placeholder'
import { SignIn } from './pages/sign-in'
import { SignUp } from './pages/sign-up'
import { Start } from './pages/start'

const page =
  (title: string, admin = false) =>
  () => (
    <Protected admin={admin}>
      <Placeholder title={title} />
    </Protected>
  )

/** The router: public pages first, then the signed-in ones. */
export function App() {
  return (
    <LocationProvider scope="/console">
      <Router>
        <Route path="/console/" component={Start} />
        <Route path="/console/sign-in" component={SignIn} />
        <Route path="/console/sign-up" component={SignUp} />
        <Route path="/console/bases" component={page('Document bases')} />
        <Route path="/console/keys" component={page('API keys', true)} />
        <Route path="/console/members" component={page('Members', true)} />
        <Route path="/console/usage" component={page('Usage', true)} />
        <Route path="/console/mcp" component={page('MCP')} />
        <Route path="/console/status" component={page('Status')} />
        <Route path="/console/account" component={page('Account')} />
        <Route default component={NotFound} />
      </Router>
    </LocationProvider>
  )
}
