import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { KNOWN_SIGN_IN_ERRORS, signInErrorMessage } from '../../../web/src/lib/sign-in-errors'

// Issue 35, item 2: the server sends a failed provider sign-in to `/console/sign-in?error=<code>`;
// codes such as rate_limited, disposable_email and identity_mismatch fell through to the generic
// "did not work (code)" sentence. Every code the provider flows can land with has its own sentence.

const ROOT = join(import.meta.dir, '../../..')

/** The codes thrown (`fail('...')`) in the files a provider sign-in runs through. */
function thrownCodes(dir: string): string[] {
  const codes: string[] = []
  for (const f of readdirSync(join(ROOT, dir))) {
    if (!f.endsWith('.ts')) continue
    const text = readFileSync(join(ROOT, dir, f), 'utf8')
    for (const m of text.matchAll(/fail\('([a-z_]+)'/g)) codes.push(m[1] as string)
  }
  return codes
}

/** Codes a provider sign-in can never land with (sign-in with a password, admin settings). */
const NOT_ON_THE_SIGN_IN_PAGE = new Set([
  'invalid_credentials',
  'wrong_password',
  'invalid_recovery_code',
  'session_required',
  'unauthorized',
  'sso_domain_taken',
  'sso_not_enforced',
  'conflict',
  'cannot_remove_self',
  'last_admin',
  'would_lock_out',
])

describe('sign-in error sentences', () => {
  test('every code the identity and sso features throw on a sign-in has a sentence', () => {
    const codes = new Set(
      ['src/features/identity', 'src/features/sso', 'src/features/accounts', 'src/features/allowlist']
        .flatMap(thrownCodes)
        .filter((c) => !NOT_ON_THE_SIGN_IN_PAGE.has(c)),
    )
    expect(codes.size).toBeGreaterThan(10)
    const missing = [...codes].filter((c) => !KNOWN_SIGN_IN_ERRORS.includes(c))
    expect(missing).toEqual([])
  })

  test('the codes the callbacks document have sentences, and none reads as the fallback', () => {
    const docs = ['src/features/identity/identity.routes.ts', 'src/features/sso/sso.routes.ts']
      .map((f) => readFileSync(join(ROOT, f), 'utf8'))
      .join('\n')
    const documented = new Set<string>()
    for (const line of docs.split('\n').filter((l) => l.includes('sign-in?error='))) {
      for (const m of line.matchAll(/`([a-z_]+)`/g)) documented.add(m[1] as string)
    }
    for (const code of [
      'rate_limited',
      'disposable_email',
      'identity_mismatch',
      'sso_domain_not_claimed',
      'account_disabled',
      'ip_not_allowed',
      ...documented,
    ]) {
      expect(KNOWN_SIGN_IN_ERRORS).toContain(code)
      const sentence = signInErrorMessage(code)
      expect(sentence).not.toContain(code)
      expect(sentence).toMatch(/\.$/)
    }
  })

  test('an unknown code still reads as a sentence, with the code to quote', () => {
    expect(signInErrorMessage('brand_new_code')).toContain('(brand_new_code)')
  })
})
