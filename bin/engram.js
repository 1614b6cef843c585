#!/usr/bin/env node
// `engram` as an npm command (package.json "bin": `npx engram`, `npm link`, or installed as a
// dependency): runs src/main.ts with Bun. Bun is the runtime (bun:sqlite, Bun.serve), so the
// launcher only finds it and hands over: the `bun` package installed beside Engram (it is a
// dependency), else `bun` on the PATH. Arguments, standard streams, signals and the exit status
// pass through unchanged, so `engram mcp` works over stdio like the compiled executable.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const main = join(dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.ts')

/** The Bun executable of the installed `bun` package, or `bun` from the PATH. */
function findBun() {
  try {
    const pkg = createRequire(import.meta.url).resolve('bun/package.json')
    // The npm package installs its executable as bin/bun.exe on every platform.
    const exe = join(dirname(pkg), 'bin', 'bun.exe')
    if (existsSync(exe)) return exe
  } catch {
    // Not installed beside Engram: fall back to the PATH.
  }
  return 'bun'
}

if (process.versions.bun) {
  // Already running on Bun (`bun bin/engram.js`): no second process needed.
  await import(main)
} else {
  const bun = findBun()
  const child = spawn(bun, ['run', main, ...process.argv.slice(2)], { stdio: 'inherit' })
  // Ctrl-C in a terminal reaches the whole process group, Bun included: the launcher only stays up
  // to report how Bun ended. Signals sent to the launcher alone (a supervisor, an MCP client
  // stopping its server) are passed on.
  process.on('SIGINT', () => {})
  for (const signal of ['SIGTERM', 'SIGHUP']) process.on(signal, () => child.kill(signal))
  child.on('error', (e) => {
    const why = e.code === 'ENOENT' ? 'Bun was not found' : e.message
    process.stderr.write(
      `engram: ${why}; run \`npm install\` in Engram's folder (Bun comes with it) or install Bun\n`,
    )
    process.exit(127)
  })
  child.on('exit', (code, signal) => {
    if (!signal) process.exit(code ?? 1)
    // Ends the same way Bun did, so a caller sees the signal rather than an exit status.
    process.removeAllListeners(signal)
    process.kill(process.pid, signal)
  })
}
