/** The frame of every signed-in page: navigation (what the role may use), the theme, the user, sign out. */
import type { ComponentChildren } from 'preact'
import { useLocation } from 'preact-iso'
import { endSession, me } from '../api/session'
import { ThemeSwitch } from './theme-switch'

interface NavItem {
  href: string
  label: string
  adminOnly?: boolean
}

/** The console's sections; a page adds itself here. */
export const NAV: NavItem[] = [
  { href: '/console/bases', label: 'Document bases' },
  { href: '/console/keys', label: 'API keys', adminOnly: true },
  { href: '/console/members', label: 'Members', adminOnly: true },
  { href: '/console/usage', label: 'Usage', adminOnly: true },
  { href: '/console/plan', label: 'Plan' },
  { href: '/console/sso', label: 'Single sign-on', adminOnly: true },
  { href: '/console/webhooks', label: 'Webhooks', adminOnly: true },
  { href: '/console/security', label: 'Security', adminOnly: true },
  { href: '/console/audit', label: 'Audit log', adminOnly: true },
  { href: '/console/mcp', label: 'MCP' },
  { href: '/console/status', label: 'Status' },
  { href: '/console/account', label: 'Account' },
]

/** Wraps a signed-in page with the navigation. */
export function Layout({ children }: { children: ComponentChildren }) {
  const { path, route } = useLocation()
  const user = me.value
  const items = NAV.filter((n) => !n.adminOnly || user?.role === 'admin')
  return (
    <div class="layout">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <a class="brand" href="/console/bases">
          Engram
        </a>
        <span class="workspace">{user?.workspace_name}</span>
        <div class="user">
          <ThemeSwitch />
          <span class="user-name">{user?.name}</span>
          <button
            type="button"
            class="btn btn-plain"
            onClick={() => {
              endSession()
              route('/console/sign-in')
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <nav class="sidenav" aria-label="Sections">
        <ul>
          {items.map((n) => (
            <li key={n.href}>
              <a
                href={n.href}
                aria-current={path === n.href || path.startsWith(`${n.href}/`) ? 'page' : undefined}
              >
                {n.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" class="content" tabIndex={-1}>
        {children}
      </main>
    </div>
  )
}

/** A page for signed-out visitors: centred card with the brand. */
export function PublicLayout({ title, children }: { title: string; children: ComponentChildren }) {
  return (
    <main class="public" id="main">
      <div class="card public-card">
        <div class="public-top">
          <p class="brand">Engram</p>
          <ThemeSwitch />
        </div>
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  )
}
