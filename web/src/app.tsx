/**
 * The console's pages. A page is a component in `pages/`; a signed-in page is wrapped in
 * `Protected` (admin pages with `admin`: a member is told the page is for admins), and its section
 * is listed in `components/layout.tsx` (the navigation shows a member no admin section).
 */
import type { ComponentType } from 'preact'
import { LocationProvider, Route, Router } from 'preact-iso'
import { Protected } from './components/guard'
import { AcceptInvite } from './pages/accept-invite'
import { Account } from './pages/account'
import { Audit } from './pages/audit'
import { AuthCallback } from './pages/auth-callback'
import { Base } from './pages/base'
import { Bases } from './pages/bases'
import { Chat } from './pages/chat'
import { CheckEmail } from './pages/check-email'
import { Compare } from './pages/compare'
import { DocumentPage } from './pages/document'
import { ForgotPassword } from './pages/forgot-password'
import { Keys } from './pages/keys'
import { LinkAccount } from './pages/link-account'
import { Mcp } from './pages/mcp'
import { Members } from './pages/members'
import { NotFound } from './pages/not-found'
import { Plan } from './pages/plan'
import { RequestAccess } from './pages/request-access'
import { ResetPassword } from './pages/reset-password'
import { Security } from './pages/security'
import { SignIn } from './pages/sign-in'
import { SignUp } from './pages/sign-up'
import { Sso } from './pages/sso'
import { Start } from './pages/start'
import { Status } from './pages/status'
import { Usage } from './pages/usage'
import { VerifyEmail } from './pages/verify-email'
import { Webhooks } from './pages/webhooks'

/** A page that needs a signed-in user (an admin, with `admin`); route params pass through. */
function signedIn<P extends object>(Page: ComponentType<P>, admin = false) {
  return (props: P) => (
    <Protected admin={admin}>
      <Page {...props} />
    </Protected>
  )
}

// Made once: a component made in render would remount its page on every render.
const BasesPage = signedIn(Bases)
const BasePage = signedIn(Base)
const ChatPage = signedIn(Chat)
const ComparePage = signedIn(Compare)
const DocumentViewer = signedIn(DocumentPage)
const KeysPage = signedIn(Keys, true)
const MembersPage = signedIn(Members, true)
const UsagePage = signedIn(Usage, true)
// Members see their plan read-only; buying and accepting are for admins (the page says so).
const PlanPage = signedIn(Plan)
const SsoPage = signedIn(Sso, true)
const WebhooksPage = signedIn(Webhooks, true)
const AuditPage = signedIn(Audit, true)
const SecurityPage = signedIn(Security, true)
const McpPage = signedIn(Mcp)
const StatusPage = signedIn(Status)
const AccountPage = signedIn(Account)

/** The router: public pages first, then the signed-in ones. */
export function App() {
  return (
    <LocationProvider scope="/console">
      <Router>
        <Route path="/console/" component={Start} />
        <Route path="/console/sign-in" component={SignIn} />
        <Route path="/console/sign-up" component={SignUp} />
        <Route path="/console/check-email" component={CheckEmail} />
        <Route path="/console/verify-email" component={VerifyEmail} />
        <Route path="/console/forgot-password" component={ForgotPassword} />
        <Route path="/console/reset-password" component={ResetPassword} />
        <Route path="/console/accept-invite" component={AcceptInvite} />
        <Route path="/console/request-access" component={RequestAccess} />
        <Route path="/console/auth/callback" component={AuthCallback} />
        <Route path="/console/auth/link" component={LinkAccount} />
        <Route path="/console/bases" component={BasesPage} />
        <Route path="/console/bases/:id" component={BasePage} />
        <Route path="/console/bases/:id/chat" component={ChatPage} />
        <Route path="/console/bases/:id/compare" component={ComparePage} />
        <Route path="/console/bases/:id/documents/:doc" component={DocumentViewer} />
        <Route path="/console/keys" component={KeysPage} />
        <Route path="/console/members" component={MembersPage} />
        <Route path="/console/usage" component={UsagePage} />
        <Route path="/console/plan" component={PlanPage} />
        <Route path="/console/sso" component={SsoPage} />
        <Route path="/console/webhooks" component={WebhooksPage} />
        <Route path="/console/audit" component={AuditPage} />
        <Route path="/console/security" component={SecurityPage} />
        <Route path="/console/mcp" component={McpPage} />
        <Route path="/console/status" component={StatusPage} />
        <Route path="/console/account" component={AccountPage} />
        <Route default component={NotFound} />
      </Router>
    </LocationProvider>
  )
}
