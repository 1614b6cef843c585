// Which email domains a workspace may claim for its SSO. A claimed domain sends everyone at it to
// that workspace's identity provider, so a domain many unrelated people share (a public mailbox
// provider) or a throwaway one is refused: no company owns it.
import { type ValidationIssue, validationFailed } from '../../platform/errors/errors'
import { isDisposableAddress } from '../accounts/accounts.schemas'

/** Mailbox providers open to anyone; their addresses say nothing about an employer. */
const PUBLIC_MAIL_DOMAINS = new Set(
  `gmail.com googlemail.com outlook.com hotmail.com live.com msn.com yahoo.com ymail.com
  rocketmail.com aol.com icloud.com me.com mac.com proton.me protonmail.com pm.me gmx.com gmx.net
  gmx.de web.de mail.com yandex.com yandex.ru zoho.com zohomail.com fastmail.com hey.com tutanota.com
  tuta.io mail.ru qq.com 163.com 126.com naver.com hotmail.co.uk yahoo.co.uk outlook.fr hotmail.fr
  orange.fr free.fr laposte.net t-online.de libero.it`.split(/\s+/),
)

/** A host name of at least two labels, each 1 to 63 letters, digits or inner hyphens. */
const DOMAIN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]([a-z0-9-]{0,61}[a-z0-9])?$/

/** The stored form of a domain: trimmed, lower-cased, without a leading `@` or a trailing dot. */
export function normaliseDomain(raw: string): string {
  return raw.trim().toLowerCase().replace(/^@/, '').replace(/\.$/, '')
}

/** The domain of an address (normalised), or '' when it has none. */
export function domainOf(email: string): string {
  const at = email.lastIndexOf('@')
  return at < 0 ? '' : normaliseDomain(email.slice(at + 1))
}

/** Normalises and checks the domains of a PUT; duplicates collapse; any bad one is a 422 naming it. */
export function checkedDomains(raw: string[]): string[] {
  const issues: ValidationIssue[] = []
  const out: string[] = []
  raw.forEach((value, i) => {
    const d = normaliseDomain(value)
    const loc = ['body', 'domains', i]
    if (!DOMAIN.test(d)) {
      issues.push({ loc, msg: `"${value}" is not a domain name (example.com).`, type: 'value_error' })
    } else if (PUBLIC_MAIL_DOMAINS.has(d) || isDisposableAddress(`someone@${d}`)) {
      issues.push({
        loc,
        msg: `${d} is a public or throwaway mail domain; claim your organisation's own domain.`,
        type: 'value_error',
      })
    } else if (!out.includes(d)) out.push(d)
  })
  if (issues.length > 0) throw validationFailed(issues)
  return out.sort()
}
