// Throwaway (disposable) mail domains, from the maintained list of the `mailchecker` package, read as
// its module's text rather than run: the module holds its 55,000 domains as strings in a Set, about
// 11 MB of an idle server's 100, for a check made when an account is registered or an SSO domain is
// claimed. Each domain stands quoted in the text (`"example.com"`), and the address format is the
// module's own expression, so the answers are the package's (tests/unit/accounts-disposable.test.ts).
import listSource from 'mailchecker/platform/node/index.js' with { type: 'text' }

const SOURCE: string = listSource

/** The list: the text of the module's `new Set([...])`, every domain in double quotes. */
const LIST = SOURCE.slice(SOURCE.indexOf('new Set(['), SOURCE.indexOf(']);'))

/** The package's address format, as its module declares it (`var isValidEmail = /.../;`). */
const FORMAT = new RegExp(/isValidEmail\s*=\s*\/(.+)\/;\n/.exec(SOURCE)?.[1] ?? '(?!)')

/**
 * Whether mailchecker would refuse the address: not an address by its format, or at a listed
 * domain or below one (`a.b.example.com` when `example.com` is listed).
 */
export function isThrowawayAddress(email: string): boolean {
  const address = email.toLowerCase()
  if (!FORMAT.test(address)) return true
  let domain = address.split('@')[1] ?? ''
  while (domain) {
    if (LIST.includes(`"${domain}"`)) return true
    const dot = domain.indexOf('.')
    if (dot === -1) break
    domain = domain.slice(dot + 1)
  }
  return false
}
