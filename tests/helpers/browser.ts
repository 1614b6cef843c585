/**
 * Browser tests of the console: Debian's headless Chromium (scripts/ensure-browser.ts installs it
 * where it is missing) driven by playwright-core, against the real server started from a fresh data
 * directory. Each test file gets one server and one browser; each test saves a screenshot of its
 * final state under test-artifacts/console/ (not committed).
 */
import { afterAll, beforeAll } from 'bun:test'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core'
import { type RunningBinary, startSource } from './binary'

const ROOT = resolve(import.meta.dir, '../..')
/** Where tests leave their screenshots. */
export const ARTIFACTS = join(ROOT, 'test-artifacts/console')

/** Debian's headless Chromium (or full Chromium), wherever the package put it. */
export function chromiumPath(): string {
  const found = [Bun.env.ENGRAM_CHROMIUM, '/usr/bin/chromium-headless-shell', '/usr/bin/chromium'].find(
    (p) => p && existsSync(p),
  )
  if (!found) throw new Error('No Chromium found: run `bun run scripts/ensure-browser.ts` (npm test does).')
  return found
}

/** The server and browser of one test file. */
export interface ConsoleRig {
  server: RunningBinary
  browser: Browser
  /** The console's address on the server. */
  url(path?: string): string
  /** A fresh browser profile (cookies and storage of its own), 1280 × 800 unless told. */
  context(opts?: { width?: number; height?: number; dark?: boolean }): Promise<BrowserContext>
  /** Saves a screenshot of `page` as test-artifacts/console/<name>.png (the whole page unless told). */
  screenshot(page: Page, name: string, opts?: { fullPage?: boolean }): Promise<void>
}

/**
 * Starts a server from a fresh data dir and a browser before the file's tests; stops both after.
 * `env` configures the server (email, sign-up mode, ...). Links come back in the API's answers
 * (ENGRAM_EMAIL=disabled) unless `env` says otherwise, so tests can follow them.
 */
export function consoleRig(env: Record<string, string> = {}): () => ConsoleRig {
  let dir = ''
  let rig: ConsoleRig | undefined
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'engram-console-'))
    const server = await startSource({
      cwd: dir,
      env: { ENGRAM_DATA_DIR: join(dir, 'data'), ENGRAM_EMAIL: 'disabled', ...env },
    })
    const browser = await chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] })
    mkdirSync(ARTIFACTS, { recursive: true })
    rig = {
      server,
      browser,
      url: (path = '/console/') => `${server.url}${path}`,
      context: (opts = {}) =>
        browser.newContext({
          viewport: { width: opts.width ?? 1280, height: opts.height ?? 800 },
          colorScheme: opts.dark ? 'dark' : 'light',
        }),
      screenshot: async (page, name, opts) => {
        await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: opts?.fullPage ?? true })
      },
    }
  }, 120_000)
  afterAll(async () => {
    await rig?.browser.close()
    await rig?.server.stop()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })
  return () => {
    if (!rig) throw new Error('the console rig did not start')
    return rig
  }
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** One accessibility problem axe-core found. */
export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: string[]
}

/**
 * Runs axe-core on the page as it is and answers its serious and critical violations. The script
 * goes in through the DevTools protocol (the page's CSP allows no injected script tag).
 */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE)
  const result = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: unknown[] }> } }).axe
    return (await axe.run()).violations as {
      id: string
      impact: string | null
      help: string
      nodes: { target: string[] }[]
    }[]
  })
  return result
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')) }))
}
