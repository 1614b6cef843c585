import { Database } from 'bun:sqlite'
import { afterEach, describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../../migrations/index'
import { EngineRepo } from '../../../src/features/engine/engine.repo'
import { exportBase, importBase, SNAPSHOT_FORMAT } from '../../../src/features/engine/engine.snapshots.repo'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { docs, fixtureEngine, onboardDoc } from './fixture'

// A base's rows as they travel between replicas (engine.snapshots.repo.ts): a snapshot taken into another
// index has the same sections; a file of a layout this build does not know is refused and changes nothing.

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function folder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engram-snapshot-'))
  dirs.push(dir)
  return dir
}

describe("a base's snapshot", () => {
  test('taken into another index, the base has the same sections there', async () => {
    const { db, engine } = await fixtureEngine()
    const path = join(folder(), 'snap.sqlite')
    expect(exportBase(db.$client, 'cor_1', path)).toBe(docs.length)
    const other = openDatabase(':memory:')
    migrate(other, migrations)
    const repo = new EngineRepo(other.$client)
    // Nothing was there; the file's sections are what its caches must forget.
    expect(importBase(repo, 'cor_1', path, true).sort()).toEqual(docs.map((d) => `sec_${d.id}`).sort())
    expect(repo.sections('cor_1').map((s) => s.sectionId)).toEqual(
      engine.sectionsOf('cor_1').map((s) => s.sectionId),
    )
  })

  test('a file of a layout this build does not know is refused, and the index keeps what it had', async () => {
    const { db } = await fixtureEngine()
    const path = join(folder(), 'snap.sqlite')
    exportBase(db.$client, 'cor_1', path)
    const file = new Database(path)
    file.run('UPDATE meta SET format = ?', [SNAPSHOT_FORMAT + 1])
    file.close()
    const other = openDatabase(':memory:')
    migrate(other, migrations)
    const repo = new EngineRepo(other.$client)
    // The other index has a base of its own under that id already: it stays as it was.
    const { Engine } = await import('../../../src/features/engine/engine.service')
    const { memoryStore } = await import('./fixture')
    await onboardDoc(new Engine({ db: other, store: memoryStore(), cacheBytes: 1 << 24 }), 'cor_1', docs[0]!)
    expect(() => importBase(repo, 'cor_1', path, true)).toThrow(`has layout ${SNAPSHOT_FORMAT + 1}`)
    expect(repo.sections('cor_1').map((s) => s.sectionId)).toEqual([`sec_${docs[0]!.id}`])
  })
})
