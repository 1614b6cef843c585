import { createHash } from 'node:crypto'

/**
 * Headers every response carries unless its route set them. An API answer is never a page:
 * `default-src 'none'` means a JSON body opened in a browser (or sniffed as HTML) runs nothing, and
 * no response may be framed. Responses are per caller and many carry secrets (tokens, API keys,
 * reset and invite links), so nothing is stored by a browser or a shared cache unless a route says
 * otherwise (`Cache-Control`); a page of ours sets its own policy (`pagePolicy`).
 */
export const SECURITY_DEFAULTS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
  'cross-origin-resource-policy': 'same-origin',
  'cache-control': 'no-store',
}

const DEFAULT_ENTRIES = Object.entries(SECURITY_DEFAULTS)

/**
 * Adds the security headers a response lacks. JSON answers are built with all of them
 * (`jsonResponse`), which the first one tells in one look: the hot path adds nothing.
 */
export function addSecurityDefaults(headers: Headers): void {
  if (headers.has('x-content-type-options')) return
  for (const [k, v] of DEFAULT_ENTRIES) if (!headers.has(k)) headers.set(k, v)
}

const INLINE = /<(script|style)(\s[^>]*)?>([\s\S]*?)<\/\1>/gi

/**
 * The Content-Security-Policy of a page of ours: its own inline `<script>` and `<style>` blocks
 * are allowed by their SHA-256 (no `'unsafe-inline'`), anything else only from this origin, and
 * `fetch` only to this origin.
 */
export function pagePolicy(html: string): string {
  const scripts: string[] = []
  const styles: string[] = []
  for (const m of html.matchAll(INLINE)) {
    const attrs = m[2] ?? ''
    // A `src` script is fetched from 'self'; only inline bodies need a hash.
    if (/\ssrc\s*=/i.test(attrs)) continue
    const hash = `'sha256-${createHash('sha256')
      .update(m[3] ?? '')
      .digest('base64')}'`
    ;(m[1]!.toLowerCase() === 'script' ? scripts : styles).push(hash)
  }
  return [
    "default-src 'none'",
    `script-src 'self' ${scripts.join(' ')}`.trim(),
    `style-src 'self' ${styles.join(' ')}`.trim(),
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ')
}
