import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

// The start-up banner of an empty install tells a person how to get a workspace and an API key.
// Its commands are run here exactly as printed (pasted into a shell), against the server that
// printed them.
const ROOT = resolve(import.meta.dir, '../..')
let dir = ''
let proc: ReturnType<typeof Bun.spawn> | undefined
let banner = ''

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'engram-first-start-'))
  proc = Bun.spawn([process.execPath, 'run', join(ROOT, 'src/main.ts'), 'serve'], {
    cwd: dir,
    env: {
      PATH: Bun.env.PATH ?? '',
      ENGRAM_HOST: '127.0.0.1',
      ENGRAM_PORT: '0',
      ENGRAM_DATA_DIR: join(dir, 'data'),
      ENGRAM_PASSWORD_MEMORY_KIB: '1024',
    },
    stdout: 'ignore',
    stderr: 'pipe',
  })
  // The banner is written in one piece; read stderr until its last line (the docs address) has arrived.
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader()
  const decoder = new TextDecoder()
  while (!/\/docs\.?\n\n/.test(banner)) {
    const { done, value } = await reader.read()
    if (done) throw new Error(`engram serve ended before its banner: ${banner}`)
    banner += decoder.decode(value, { stream: true })
  }
  reader.releaseLock()
}, 60_000)

afterAll(async () => {
  proc?.kill('SIGTERM')
  await proc?.exited
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The shell commands in the banner: indented lines, joined across trailing backslashes. */
function commands(text: string): string[] {
  return text
    .replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((l) => l.startsWith('  curl '))
    .map((l) => l.trim())
}

/** Runs a pasted command in bash; returns the HTTP status and the parsed body. */
async function paste(command: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const sh = Bun.spawn(['bash', '-c', `${command} -sS -w '\\n%{http_code}'`], {
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const [out, err, code] = await Promise.all([
    new Response(sh.stdout).text(),
    new Response(sh.stderr).text(),
    sh.exited,
  ])
  expect(err).toBe('')
  expect(code).toBe(0)
  const at = out.lastIndexOf('\n')
  return { status: Number(out.slice(at + 1)), body: JSON.parse(out.slice(0, at)) }
}

describe('the first-start banner', () => {
  test('it names the console, which answers its page at that address', async () => {
    const url = banner.match(/^ {2}(http:\/\/\S+\/console\/)$/m)?.[1]
    expect(url).toBeDefined()
    const res = await fetch(url!)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('<div id="app"></div>')
  })

  test('its register, sign-in and key commands work when pasted, in that order', async () => {
    const [register, login, mint, ...rest] = commands(banner)
    expect(rest).toEqual([])
    expect(register).toContain('/v1/auth/register')
    expect(login).toContain('/v1/auth/login')
    expect(mint).toContain('/v1/api-keys')

    const created = await paste(register!)
    expect(created.status).toBe(200)
    expect(created.body.access_token).toBeString()

    const signedIn = await paste(login!)
    expect(signedIn.status).toBe(200)
    const token = signedIn.body.access_token as string
    expect(token).toBeString()

    const key = await paste(mint!.replace('<access_token>', token))
    expect(key.status).toBe(200)
    expect(key.body).toMatchObject({ name: 'my laptop', scopes: ['ingest', 'query'] })
    expect(key.body.key).toStartWith('ek_')
  }, 60_000)
})
