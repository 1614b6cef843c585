// Fails when the schema and the migrations disagree: drizzle-kit must generate nothing new, and
// migrations/index.ts must embed exactly the journal's migrations.
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import { renderMigrationIndex } from './embed-migrations'

// drizzle-kit only takes an output folder relative to the project, so the copy lives here.
const tmp = relative(process.cwd(), mkdtempSync(join(process.cwd(), '.migrations-check-')))
try {
  cpSync('migrations', tmp, { recursive: true })
  const before = readdirSync(tmp).sort()
  const run = Bun.spawnSync(['npx', 'drizzle-kit', 'generate'], {
    env: { ...process.env, DRIZZLE_OUT: tmp },
    stdout: 'pipe',
    stderr: 'pipe',
  })
  const added = readdirSync(tmp).filter((f) => !before.includes(f))
  const output = `${run.stdout.toString()}${run.stderr.toString()}`
  // drizzle-kit can exit 0 after an error, so only its explicit verdict counts as agreement.
  if (run.exitCode !== 0 || (added.length === 0 && !output.includes('No schema changes'))) {
    console.error(output)
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
