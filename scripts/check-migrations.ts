// `npm run db:check`: fails when the schema and either dialect's migrations disagree. For SQLite
// (migrations/) and PostgreSQL (migrations-pg/) drizzle-kit must generate nothing new, and each
// index.ts must embed exactly its journal's migrations; migrations-pg/schema.ts must list the twin of
// every declared table (scripts/pg-schema.ts).
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { renderMigrationIndex } from './embed-migrations'
import { renderPgSchema } from './pg-schema'

const ROOT = resolve(import.meta.dir, '..')

/** One dialect's migrations: its drizzle-kit config and output folder, relative to the project. */
export interface MigrationDialect {
  name: string
  config: string
  out: string
}

/** The project's two dialects. */
export const DIALECTS: MigrationDialect[] = [
  { name: 'SQLite', config: 'drizzle.config.ts', out: 'migrations' },
  { name: 'PostgreSQL', config: 'drizzle.pg.config.ts', out: 'migrations-pg' },
]

/**
 * What disagrees in the project at `root`, one sentence a problem (none: schema and migrations
 * agree). drizzle-kit generates into a copy of each dialect's folder, so nothing real is touched.
 */
export function migrationProblems(root = ROOT, dialects = DIALECTS): string[] {
  const problems: string[] = []
  for (const d of dialects) {
    // drizzle-kit only takes an output folder relative to the project, so the copy lives there.
    const tmp = relative(root, mkdtempSync(join(root, '.migrations-check-')))
    try {
      cpSync(join(root, d.out), join(root, tmp), { recursive: true })
      const before = readdirSync(join(root, tmp))
      const run = Bun.spawnSync(
        [join(ROOT, 'node_modules', '.bin', 'drizzle-kit'), 'generate', '--config', d.config],
        {
          cwd: root,
          env: { ...process.env, DRIZZLE_OUT: tmp },
          stdout: 'pipe',
          stderr: 'pipe',
        },
      )
      const added = readdirSync(join(root, tmp)).filter((f) => !before.includes(f))
      const output = `${run.stdout.toString()}${run.stderr.toString()}`
      // drizzle-kit can exit 0 after an error, so only its explicit verdict counts as agreement.
      if (run.exitCode !== 0 || (added.length === 0 && !output.includes('No schema changes'))) {
        problems.push(`${d.name}: drizzle-kit failed:\n${output}`)
      } else if (added.length > 0) {
        problems.push(
          `${d.name}: the schema has changes with no migration: drizzle-kit would generate ${added.join(', ')}. ` +
            'Run `npm run db:generate` and commit the result.',
        )
      } else if (
        readFileSync(join(root, d.out, 'index.ts'), 'utf8') !== renderMigrationIndex(join(root, d.out))
      ) {
        problems.push(`${d.name}: ${d.out}/index.ts is stale; run \`npm run db:generate\`.`)
      }
    } finally {
      rmSync(join(root, tmp), { recursive: true, force: true })
    }
  }
  return problems
}

if (import.meta.main) {
  const problems = migrationProblems()
  if (readFileSync(join(ROOT, 'migrations-pg/schema.ts'), 'utf8') !== (await renderPgSchema())) {
    problems.push('migrations-pg/schema.ts does not list every declared table; run `npm run db:generate`.')
  }
  for (const p of problems) console.error(p)
  if (problems.length > 0) process.exitCode = 1
  else console.log('migrations: schema and migrations agree (SQLite and PostgreSQL)')
}
