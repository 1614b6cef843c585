import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { type MigrationDialect, migrationProblems } from '../../../scripts/check-migrations'
import { renderMigrationIndex } from '../../../scripts/embed-migrations'

// `npm run db:check` on a small project of its own (one table, both dialects), never the real
// files: it agrees once both dialects' migrations are generated, and a change to the table that
// only one dialect's migrations took fails the check, naming the other.

const ROOT = resolve(import.meta.dir, '../../..')
const DIALECTS: MigrationDialect[] = [
  { name: 'SQLite', config: 'sqlite.config.ts', out: 'sqlite' },
  { name: 'PostgreSQL', config: 'pg.config.ts', out: 'pg' },
]

// Inside the repository (gitignored), so the project's files resolve drizzle-orm as ours do.
const dir = mkdtempSync(join(ROOT, '.migrations-check-test-'))
const pgTables = relative(dir, join(ROOT, 'src/platform/db/pg-tables')).replaceAll('\\', '/')

function declare(extraColumn: string) {
  writeFileSync(
    join(dir, 'things.tables.ts'),
    `import { integer, sqliteTable, text } from 'drizzle-orm/sqlite-core'
export const things = sqliteTable('things', {
  id: text('id').primaryKey(),
  size: integer('size').notNull().default(0),${extraColumn}
})
`,
  )
}

/** drizzle-kit generate for one dialect, into its real folder, then its index.ts. */
function generate(d: MigrationDialect) {
  const run = Bun.spawnSync([join(ROOT, 'node_modules/.bin/drizzle-kit'), 'generate', '--config', d.config], {
    cwd: dir,
    stdout: 'pipe',
    stderr: 'pipe',
  })
  if (run.exitCode !== 0) throw new Error(run.stderr.toString())
  writeFileSync(join(dir, d.out, 'index.ts'), renderMigrationIndex(join(dir, d.out)))
}

const [sqlite, postgres] = DIALECTS as [MigrationDialect, MigrationDialect]

beforeAll(() => {
  writeFileSync(
    join(dir, 'pg.schema.ts'),
    `import { pgTwin } from '${pgTables.startsWith('.') ? pgTables : `./${pgTables}`}'
import { things as declared } from './things.tables'
export const things = pgTwin(declared)
`,
  )
  for (const d of DIALECTS) {
    const schema = d.name === 'SQLite' ? './things.tables.ts' : './pg.schema.ts'
    const dialect = d.name === 'SQLite' ? 'sqlite' : 'postgresql'
    writeFileSync(
      join(dir, d.config),
      `export default { dialect: '${dialect}', schema: '${schema}', out: process.env.DRIZZLE_OUT ?? './${d.out}' }\n`,
    )
  }
  declare('')
  generate(sqlite)
  generate(postgres)
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('db:check', () => {
  test('a table changed and regenerated for one dialect only fails the check, naming the other', () => {
    cpSync(join(dir, 'sqlite'), join(dir, 'sqlite-before'), { recursive: true })
    declare("\n  note: text('note'),")
    generate(sqlite)
    expect(migrationProblems(dir, DIALECTS)).toEqual([
      expect.stringContaining('PostgreSQL: the schema has changes with no migration'),
    ])
    generate(postgres)
    expect(migrationProblems(dir, DIALECTS)).toEqual([])
    // Now PostgreSQL's migrations have the change and SQLite's do not.
    rmSync(join(dir, 'sqlite'), { recursive: true })
    cpSync(join(dir, 'sqlite-before'), join(dir, 'sqlite'), { recursive: true })
    expect(migrationProblems(dir, DIALECTS)).toEqual([
      expect.stringContaining('SQLite: the schema has changes with no migration'),
    ])
  }, 120_000)

  test('an index.ts that does not embed its journal fails the check', () => {
    generate(sqlite)
    writeFileSync(join(dir, 'pg', 'index.ts'), 'export const migrations = []\n')
    expect(migrationProblems(dir, DIALECTS)).toEqual([
      'PostgreSQL: pg/index.ts is stale; run `npm run db:generate`.',
    ])
  }, 60_000)
})
