import { afterAll, describe, expect, test } from 'bun:test'
import { accessSync, constants, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { VERSION } from '../../src/app'

// `engram` as an npm command: package.json's `bin` names a launcher that runs src/main.ts with the
// Bun installed beside it, from any working directory, and `npx engram` finds it in a checkout.
const ROOT = resolve(import.meta.dir, '../..')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  bin?: Record<string, string>
  dependencies?: Record<string, string>
}
const elsewhere = mkdtempSync(join(tmpdir(), 'engram-launcher-'))
afterAll(() => rmSync(elsewhere, { recursive: true, force: true }))

/** Runs a command to completion with stdin closed. */
async function run(cmd: string[], cwd: string) {
  const proc = Bun.spawn(cmd, { cwd, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' })
  const [code, out, err] = await Promise.all([
    proc.exited,
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
  ])
  return { code, out, err }
}

describe('the engram command', () => {
  test('package.json names an executable Node launcher as the engram command', () => {
    const launcher = join(ROOT, pkg.bin?.engram ?? 'missing')
    expect(readFileSync(launcher, 'utf8')).toStartWith('#!/usr/bin/env node\n')
    accessSync(launcher, constants.X_OK)
    // The launcher needs Bun wherever Engram is installed, not only in a checkout.
    expect(pkg.dependencies?.bun).toBeDefined()
  })

  test('run from another folder, prints the version and passes the exit status through', async () => {
    const launcher = join(ROOT, pkg.bin!.engram!)
    const version = await run([launcher, 'version'], elsewhere)
    expect(version).toEqual({ code: 0, out: `${VERSION}\n`, err: '' })
    const wrong = await run([launcher, 'no-such-command'], elsewhere)
    expect(wrong.code).toBe(1)
    expect(wrong.err).toStartWith('engram: Unknown command: no-such-command')
  })

  test('`npx engram version` in the checkout prints the version without the registry', async () => {
    const r = await run(['npx', '--no', '--offline', 'engram', 'version'], ROOT)
    expect(r.code).toBe(0)
    expect(r.out).toBe(`${VERSION}\n`)
  }, 60_000)
})
