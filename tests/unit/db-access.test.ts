import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'

// The features' state is reached only through the store (issue 39, docs/data-layer.md): outside the
// engine (whose passage index is a SQLite database on both engines, `Platform.db`) and the data
// layer itself, no source file takes bun:sqlite's connection from the platform, touches its raw
// client, or runs a synchronous transaction on it. A file that did would run on SQLite only.

const ROOT = resolve(import.meta.dir, '../..')
const SRC = join(ROOT, 'src')

/** Where the SQLite file may be used as it is: the engine's index and the data layer. */
const OWNERS = ['features/engine/', 'platform/db/']

/**
 * The few uses allowed elsewhere, each for what it does to the file itself (not to features'
 * tables): the runtime's WAL checkpoint thread, the CLI closing the file it opened.
 */
const ALLOWED: { file: string; use: RegExp }[] = [
  { file: 'platform/runtime/runtime.ts', use: /new CheckpointThread\(db\.\$client\b/g },
  { file: 'cli/runtime.ts', use: /\bdb\.\$client\.close\(\)/g },
  { file: 'cli/data-copy.ts', use: /\bdb\.\$client\.close\(\)/g },
]

/** What reaches bun:sqlite's connection directly. */
const USES: { what: string; re: RegExp }[] = [
  { what: '$client (bun:sqlite raw client)', re: /\$client\b/g },
  {
    what: "the platform's db (Platform.db / AppDeps.db)",
    re: /\b(?:p|d|deps|platform|this\.d|this\.deps)\.db\b/g,
  },
  { what: 'a synchronous transaction', re: /(?<![\w.])transaction\(|\.transaction\(\s*\(\)/g },
  { what: 'platform/db/transaction.ts', re: /from\s+['"][^'"]*\/db\/transaction['"]/g },
]

/** Every TypeScript file under `dir`. */
function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sources(path)
    return path.endsWith('.ts') ? [path] : []
  })
}

/** Comments out of the way: a sentence about `$client` is no use of it. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1')
}

/** "file: what" for each direct use of the SQLite connection in `text` (the source of `file`, relative to src). */
function directUses(file: string, text: string): string[] {
  if (OWNERS.some((o) => file.startsWith(o))) return []
  let body = code(text)
  for (const a of ALLOWED) if (a.file === file) body = body.replace(a.use, '')
  return USES.flatMap((u) => (body.match(u.re) ?? []).map(() => `${file}: ${u.what}`))
}

describe('features reach their state only through the store', () => {
  test('no source outside the engine and the data layer uses the SQLite connection', () => {
    const found = sources(SRC).flatMap((f) => directUses(relative(SRC, f), readFileSync(f, 'utf8')))
    expect(found).toEqual([])
  })

  test('the check sees each kind of use, and passes the owners and the allowed uses', () => {
    expect(directUses('features/x/x.repo.ts', 'const c = this.db.$client')).toEqual([
      'features/x/x.repo.ts: $client (bun:sqlite raw client)',
    ])
    expect(directUses('features/x/x.feature.ts', 'new XRepo(p.db)')).toHaveLength(1)
    expect(directUses('features/x/x.service.ts', 'return transaction(this.d.db, () => 1)')).toHaveLength(2)
    expect(directUses('platform/jobs/y.ts', 'c.transaction(() => {')).toHaveLength(1)
    expect(
      directUses('features/x/x.ts', "import { transaction } from '../../platform/db/transaction'"),
    ).toHaveLength(1)
    expect(directUses('features/x/x.ts', '// the old $client read is gone')).toEqual([])
    expect(directUses('features/engine/engine.repo.ts', 'this.db.$client.query("SELECT 1")')).toEqual([])
    expect(directUses('platform/db/store.ts', 'db.$client.transaction(() => {})')).toEqual([])
    expect(directUses('platform/runtime/runtime.ts', 'new CheckpointThread(db.$client, {')).toEqual([])
    expect(directUses('features/x/x.ts', 'await store.unit(async () => {})')).toEqual([])
  })
})
