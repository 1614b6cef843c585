// Fails when the schema and the migrations disagree: drizzle-kit must generate nothing new, and
// migrations/index.ts must embed exactly the journal's migrations.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { renderMigrationIndex } from './embed-migrations'

const tmp = mkdtempSync(join(tmpdir(), 'engram-migrations-'))
try {
  cpSync('migrations', tmp, { recursive: true })
  const before = readdirSync(tmp).sort()
  const run = Bun.spawnSync(['npx', 'drizzle-kit', 'generate'], {
    env: { ...process.env, DRIZZLE_OUT: tmp },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const added = readdirSync(tmp).filter((f) => !before.includes(f))
  if (run.exitCode !== 0) {
    console.error(run.stdout.toString(), run.stderr.toString())
    process.exitCode = 1
  } else if (added.length > 0) {
    console.error(`The schema has changes with no migration: drizzle-kit would generate ${added.join(', ')}.`)
    console.error('Run `npm run db:generate` and commit the result.')
    process.exitCode = 1
  } else if (readFileSync('migrations/index.ts', 'utf8') !== renderMigrationIndex()) {
    console.error('migrations/index.ts is stale; run `npm run db:generate`.')
    process.exitCode = 1
  } else {
    console.log('migrations: schema and migrations agree')
  }
} finally {
  rmSync(tmp, { recursive: true, force: true })
}
