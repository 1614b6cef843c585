import { describe, expect, test } from 'bun:test'
import { createHmac } from 'node:crypto'
import { jwtVerify, SignJWT, UnsecuredJWT } from 'jose'
import { SessionTokens } from '../../src/platform/crypto/token'

// Session tokens are signed and checked by hand on the request path (token.ts says why: measured
// 13 to 18 times cheaper than jose). These tests hold the hand-written code to the standard by
// checking it against jose, a well-kept JWT library, in both directions.
const SECRET = 'a-server-secret-of-at-least-thirty-two-characters'
const tokens = new SessionTokens(SECRET, { normal: 3600, remember: 86_400, cap: 7 * 86_400 })
/** The key TokenSigner derives for the session purpose. */
const key = createHmac('sha256', SECRET).update('engram:session').digest()
const subject = { userId: 'usr_0123456789abcdef', workspaceId: 'ws_0123456789abcdef', tokenVersion: 3 }
const NOW = 1_795_000_000

describe('session tokens are standard HS256 JWTs', () => {
  test('jose, pinned to HS256, verifies a session token and reads the same claims', async () => {
    const { token, claims } = tokens.issue(subject, 'remember', NOW)
    const { payload, protectedHeader } = await jwtVerify(token, key, {
      algorithms: ['HS256'],
      currentDate: new Date(NOW * 1000),
    })
    expect(protectedHeader).toEqual({ alg: 'HS256', typ: 'JWT' })
    expect(payload).toEqual({ ...claims })
  })

  test('a token jose signs with the same header and claims is the same token, and is read back', async () => {
    const { token, claims } = tokens.issue(subject, 'normal', NOW)
    const signed = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(key)
    expect(signed).toBe(token)
    expect(tokens.read(signed)).toEqual(claims)
  })

  test('tokens jose makes with another algorithm, no signature or another key are refused', async () => {
    const { claims } = tokens.issue(subject, 'normal', NOW)
    const sign = (alg: string, k: Uint8Array) =>
      new SignJWT({ ...claims }).setProtectedHeader({ alg, typ: 'JWT' }).sign(k)
    const refused = [
      await sign('HS384', key),
      await sign('HS512', key),
      new UnsecuredJWT({ ...claims }).encode(),
      await sign('HS256', createHmac('sha256', 'another-secret').update('engram:session').digest()),
      // A signature made for another purpose with the same server secret.
      await sign('HS256', createHmac('sha256', SECRET).update('engram:link').digest()),
      // Our header and claims, with the header's members in another order (jose accepts it; the
      // pinned header does not, so no header but the one we issue is ever parsed).
      await new SignJWT({ ...claims }).setProtectedHeader({ typ: 'JWT', alg: 'HS256' }).sign(key),
    ]
    for (const token of refused) expect(tokens.read(token)).toBeNull()
  })

  test('a tampered claim breaks the signature for jose and for the hand-written check alike', async () => {
    const { token } = tokens.issue(subject, 'normal', NOW)
    const [h, p, s] = token.split('.') as [string, string, string]
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString())
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, ver: 4 })).toString('base64url')}.${s}`
    expect(tokens.read(forged)).toBeNull()
    await expect(jwtVerify(forged, key, { algorithms: ['HS256'] })).rejects.toThrow(
      'signature verification failed',
    )
  })
})
