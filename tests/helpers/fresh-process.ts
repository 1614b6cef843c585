// Runs a script in a fresh Bun process, one whose module-level tables (the static vectors, WordNet's)
// nothing has read yet: what a test of a first read needs, which this process may have done already.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** The checkout's root, for the script's imports (`${ROOT}/src/...`). */
export const ROOT = join(import.meta.dir, '../..')

/** Runs `code` (a module: imports and top-level await allowed) and returns what it wrote to stderr and stdout. */
export function inFreshProcess(code: string): { stderr: string; stdout: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fresh-'))
  try {
    writeFileSync(join(dir, 'script.ts'), code)
    const run = Bun.spawnSync([process.execPath, join(dir, 'script.ts')], { stderr: 'pipe' })
    return { stderr: run.stderr.toString(), stdout: run.stdout.toString() }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
