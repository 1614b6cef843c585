import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'

// One owner per table (issue 39; STYLE.md, "One owner per table"): a table is named in SQL only by
// the code of the feature (or platform module) that declares it; everyone else calls its service.
// The owners are read from the declarations themselves: every `sqliteTable('name'` in a
// `*.tables.ts` file, and every table a migration creates that no tables file declares (the
// engine's hand-written `engine_*` tables and its FTS5 index). A `*.tables.ts` file may name another
// feature's table for a foreign key: that is declaration, not use.

const ROOT = resolve(import.meta.dir, '../..')
const SRC = join(ROOT, 'src')
const MIGRATIONS = join(ROOT, 'migrations')

/** Every TypeScript file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

/** The owner of a file: its feature's folder (`corpora`), its platform module (`platform/jobs`), or the CLI/entry. */
function ownerOf(file: string): string {
  const [top, second] = relative(SRC, file).split('/')
  if (top === 'features' || top === 'platform') return top === 'features' ? second! : `platform/${second}`
  return top === 'cli' ? 'cli' : relative(SRC, file)
}

/** Table name → owner, from the tables files and then the migrations (for tables no file declares). */
function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>()
  for (const file of sources(SRC).filter((f) => f.endsWith('.tables.ts'))) {
    for (const m of readFileSync(file, 'utf8').matchAll(/sqliteTable\(\s*['"`](\w+)['"`]/g)) {
      owners.set(m[1]!, ownerOf(file))
    }
  }
  for (const name of readdirSync(MIGRATIONS).filter((n) => n.endsWith('.sql'))) {
    const text = readFileSync(join(MIGRATIONS, name), 'utf8')
    for (const m of text.matchAll(/CREATE\s+(?:VIRTUAL\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?[`"]?(\w+)/gi)) {
      const table = m[1]!
      // drizzle-kit rebuilds a table as `__new_<name>` and renames it back: not a table of its own.
      if (owners.has(table) || table.startsWith('__new_')) continue
      owners.set(table, table.startsWith('engine_') ? 'engine' : `? (${name})`)
    }
  }
  return owners
}

/**
 * Where `text` (the source of a file owned by `owner`) names another owner's table in SQL (after
 * FROM, JOIN, INTO, UPDATE, DELETE FROM or TABLE, in any string or template) or imports another
 * feature's tables module: one "table (owner)" a finding.
 */
function foreignUses(text: string, owner: string, owners: Map<string, string>, file = ''): string[] {
  const names = [...owners.keys()].sort((a, b) => b.length - a.length).join('|')
  const sql = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\\s+[\`"']?(${names})\\b`, 'g')
  const found = new Set<string>()
  for (const m of text.matchAll(sql)) {
    const of = owners.get(m[1]!)!
    if (of !== owner) found.add(`${m[1]} (${of})`)
  }
  for (const m of text.matchAll(/\bfrom\s+['"](\.{1,2}\/[^'"]+\.tables)['"]/g)) {
    const target = ownerOf(`${resolve(dirname(file || join(SRC, 'x.ts')), m[1]!)}.ts`)
    if (target !== owner) found.add(`${m[1]} (${target})`)
  }
  return [...found]
}

describe('table ownership', () => {
  const owners = tableOwners()

  test('every table has an owner: the tables files, and the engine for its migrations-only tables', () => {
    expect(owners.get('documents')).toBe('corpora')
    expect(owners.get('workspaces')).toBe('workspaces')
    expect(owners.get('jobs')).toBe('platform/jobs')
    expect(owners.get('engine_passages')).toBe('engine')
    expect(owners.get('engine_fts')).toBe('engine')
    expect([...owners].filter(([, o]) => o.startsWith('?'))).toEqual([])
  })

  test('the check finds SQL and imports that reach another owner’s table', () => {
    const text = [
      "q('SELECT d.id FROM documents d LEFT JOIN corpora c ON c.id = d.corpus_id')",
      '`UPDATE workspaces SET status = ?`',
      "'DELETE FROM jobs WHERE id = ?'",
      "import { apiKeys } from '../keys/keys.tables'",
      "'SELECT 1 FROM engine_passages'",
    ].join('\n')
    const file = join(SRC, 'features/onboarding/onboarding.repo.ts')
    expect(foreignUses(text, 'onboarding', owners, file).sort()).toEqual([
      '../keys/keys.tables (keys)',
      'corpora (corpora)',
      'documents (corpora)',
      'engine_passages (engine)',
      'jobs (platform/jobs)',
      'workspaces (workspaces)',
    ])
    // Its own tables, and words in prose, are not findings.
    expect(foreignUses("'SELECT * FROM documents' // read from documents", 'corpora', owners)).toEqual([])
  })

  test('no code names another feature’s table: each table is read and written only by its owner', () => {
    const found: string[] = []
    for (const file of sources(SRC).filter((f) => !f.endsWith('.tables.ts'))) {
      const text = readFileSync(file, 'utf8')
      for (const use of foreignUses(text, ownerOf(file), owners, file))
        found.push(`${relative(ROOT, file)}: ${use}`)
    }
    expect(found).toEqual([])
  })
})
