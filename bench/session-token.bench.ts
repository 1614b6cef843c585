// `bun run bench/session-token.bench.ts`: what reading a session token costs, the hand-written
// HS256 check (src/platform/crypto/token.ts, run on every request that carries a session) beside
// jose's `jwtVerify` and `SignJWT` with the same key on the same token. Rounds are interleaved so a
// noisy, shared machine slows both alike. Prints microseconds per call. Asserts nothing.
import { createHmac } from 'node:crypto'
import { jwtVerify, SignJWT } from 'jose'
import { SessionTokens } from '../src/platform/crypto/token'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const N = Number(process.env.BENCH_CALLS ?? 50_000)
const SECRET = 'x'.repeat(64)
const tokens = new SessionTokens(SECRET, { normal: 3600, remember: 86_400 * 30, cap: 86_400 * 90 })
// The key TokenSigner derives for sessions, so both sides check the same signature.
const key = createHmac('sha256', SECRET).update('engram:session').digest()
// jose imports a raw key on every call; a CryptoKey imported once is its fastest form.
const cryptoKey = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
  'sign',
  'verify',
])
const now = Math.floor(Date.now() / 1000)
const subject = { userId: 'usr_0123456789abcdef', workspaceId: 'ws_0123456789abcdef', tokenVersion: 1 }
const { token, claims } = tokens.issue(subject, 'normal', now)

// The two formats are the same: jose accepts ours, and ours accepts jose's.
const viaJose = await jwtVerify(token, key, { algorithms: ['HS256'] })
const joseToken = await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(key)
if (viaJose.payload.sub !== subject.userId || joseToken !== token) throw new Error('formats differ')

/** Microseconds per call of `fn`, run N times (awaited one after another when it is async). */
async function perCall(fn: () => unknown): Promise<number> {
  const t0 = Bun.nanoseconds()
  for (let i = 0; i < N; i++) {
    const r = fn()
    if (r instanceof Promise) await r
  }
  return (Bun.nanoseconds() - t0) / N / 1000
}

const cases: Record<string, () => unknown> = {
  'verify, hand-written (SessionTokens.read)': () => tokens.read(token),
  'verify, jose jwtVerify (raw key)': () => jwtVerify(token, key, { algorithms: ['HS256'] }),
  'verify, jose jwtVerify (CryptoKey)': () => jwtVerify(token, cryptoKey, { algorithms: ['HS256'] }),
  'sign, hand-written (SessionTokens.issue)': () => tokens.issue(subject, 'normal', now),
  'sign, jose SignJWT (CryptoKey)': () =>
    new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', typ: 'JWT' }).sign(cryptoKey),
}
const seen: Record<string, number[]> = {}
for (const fn of Object.values(cases)) await perCall(fn) // warm-up
for (let r = 0; r < ROUNDS; r++) {
  for (const [name, fn] of Object.entries(cases)) {
    seen[name] ??= []
    seen[name].push(await perCall(fn))
  }
}
for (const [name, us] of Object.entries(seen)) {
  const sorted = [...us].sort((a, b) => a - b)
  console.log(
    `${name.padEnd(44)} median ${sorted[sorted.length >> 1]!.toFixed(2)} µs  (rounds: ${us.map((u) => u.toFixed(2)).join(', ')})`,
  )
}
