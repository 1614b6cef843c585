// Runs before `npm test` (package.json `pretest`): the console's browser tests need Debian's
// headless Chromium. Where none is installed it installs `chromium-headless-shell` with apt-get
// (as root, or through sudo); never a downloaded browser build. ENGRAM_CHROMIUM names another one.
import { existsSync } from 'node:fs'

const CANDIDATES = [process.env.ENGRAM_CHROMIUM, '/usr/bin/chromium-headless-shell', '/usr/bin/chromium']
if (CANDIDATES.some((p) => p && existsSync(p))) process.exit(0)

const root = process.getuid?.() === 0
const sudo = root ? [] : ['sudo', '-n']
const run = (cmd: string[]) => {
  console.log(`ensure-browser: ${cmd.join(' ')}`)
  const r = Bun.spawnSync(cmd, {
    stdout: 'inherit',
    stderr: 'inherit',
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  })
  return r.exitCode === 0
}
const ok =
  run([...sudo, 'apt-get', 'update', '-qq']) &&
  run([...sudo, 'apt-get', 'install', '-y', '-qq', '--no-install-recommends', 'chromium-headless-shell'])
if (!ok || !existsSync('/usr/bin/chromium-headless-shell')) {
  console.error(
    "ensure-browser: could not install Debian's chromium-headless-shell; install it (apt-get install chromium-headless-shell) or set ENGRAM_CHROMIUM to a Chromium executable.",
  )
  process.exit(1)
}
