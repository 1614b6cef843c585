import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../../migrations/index'
import { compileCartridge, passageInputs, passageTerms } from '../../../src/features/engine/cart/index'
import { EngineRepo } from '../../../src/features/engine/engine.repo'
import { searchIndex } from '../../../src/features/engine/rag/index'
import { planQuery } from '../../../src/features/engine/rank/index'
import { contentTerms } from '../../../src/features/engine/text/index'
import { openDatabase } from '../../../src/platform/db/db'
import { migrate } from '../../../src/platform/db/migrate'
import { sqliteStore } from '../../../src/platform/db/store'

type SectionSpec = { base: string; id: string; doc: string; passages: string[] }

function repoWith(sections: SectionSpec[], path = ':memory:') {
  const db = openDatabase(path)
  migrate(db, migrations)
  const repo = new EngineRepo(db.$client)
  putSections(repo, sections)
  return repo
}

function putSections(repo: EngineRepo, sections: SectionSpec[]): void {
  for (const s of sections) {
    repo.putSection(
      {
        sectionId: s.id,
        baseId: s.base,
        documentId: s.doc,
        title: s.doc,
        filename: `${s.doc}.txt`,
        cartKey: `k_${s.id}`,
        nPassages: 0,
      },
      s.passages.map((text, ordinal) => ({
        ordinal,
        text,
        sents: Uint32Array.from([0, text.length]),
        terms: contentTerms(text),
      })),
    )
  }
}

const ids = (repo: EngineRepo, base: string, q: string) =>
  repo.match(repo.baseKey(base)!, contentTerms(q), 10).map((h) => repo.passages([h.id])[0]!.text)

describe('the passage index', () => {
  test('ranks by BM25: the passage where the rare term weighs most comes first', () => {
    const repo = repoWith([
      {
        base: 'cor_a',
        id: 's1',
        doc: 'd1',
        passages: [
          'Copper wire carries current in many homes and offices around the city.',
          'Copper and copper alloys: copper is prized.',
          'Aluminium wire is lighter than other metals used for power lines.',
          'Glass is made from sand.',
        ],
      },
    ])
    expect(ids(repo, 'cor_a', 'copper')).toEqual([
      'Copper and copper alloys: copper is prized.',
      'Copper wire carries current in many homes and offices around the city.',
    ])
  })

  test("a base never sees another base's passages, and counts terms on its own", () => {
    const repo = repoWith([
      { base: 'cor_a', id: 'a1', doc: 'da', passages: ['Oxygen was isolated by Scheele.'] },
      {
        base: 'cor_b',
        id: 'b1',
        doc: 'db',
        passages: ['Oxygen is used in rockets.', 'Oxygen is pale blue when liquid.'],
      },
    ])
    expect(ids(repo, 'cor_a', 'oxygen')).toEqual(['Oxygen was isolated by Scheele.'])
    expect(ids(repo, 'cor_b', 'oxygen')).toHaveLength(2)
    expect(repo.documentFrequencies(repo.baseKey('cor_a')!, ['oxygen'])).toEqual([1])
    expect(repo.documentFrequencies(repo.baseKey('cor_b')!, ['oxygen'])).toEqual([2])
    expect(repo.openBase('cor_a')?.passages).toBe(1)
    const ranked = searchIndex(repo, 'cor_b', planQuery('What is oxygen used in?'), 5, { pool: 10 })
    expect(ranked.map((r) => r.ref.documentId)).toEqual(['db', 'db'])
  })

  test('removing a section deletes its passages, index entries and counts', () => {
    const repo = repoWith([
      { base: 'cor_a', id: 's1', doc: 'd1', passages: ['Warsaw lies on the Vistula.'] },
      { base: 'cor_a', id: 's2', doc: 'd2', passages: ['Krakow lies on the Vistula too.'] },
    ])
    expect(ids(repo, 'cor_a', 'vistula')).toHaveLength(2)
    expect(repo.removeSection('s1')?.documentId).toBe('d1')
    expect(ids(repo, 'cor_a', 'vistula')).toEqual(['Krakow lies on the Vistula too.'])
    expect(ids(repo, 'cor_a', 'warsaw')).toEqual([])
    expect(repo.documentFrequencies(repo.baseKey('cor_a')!, ['warsaw', 'vistula'])).toEqual([0, 1])
    expect(repo.openBase('cor_a')?.passages).toBe(1)
    expect(repo.sections('cor_a').map((s) => s.sectionId)).toEqual(['s2'])
  })

  test('term counts read once stay right after any change to the base, also from another connection', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-index-'))
    try {
      const path = join(dir, 'engram.db')
      const repo = repoWith(
        [{ base: 'cor_a', id: 's1', doc: 'd1', passages: ['Warsaw lies on the Vistula.'] }],
        path,
      )
      const counts = (r: EngineRepo) => {
        const base = r.openBase('cor_a')!
        return [
          base.passages,
          ...r.documentFrequencies(base.key, ['vistula', 'krakow']),
          r.termsWithPrefix(base.key, 'krak').length,
        ]
      }
      expect(counts(repo)).toEqual([1, 1, 0, 0])
      // The same process adds a section: the counts read above are not used again, even by a
      // caller that does not open the base first.
      putSections(repo, [
        { base: 'cor_a', id: 's2', doc: 'd2', passages: ['Krakow lies on the Vistula too.'] },
      ])
      expect(repo.documentFrequencies(repo.baseKey('cor_a')!, ['vistula', 'krakow'])).toEqual([2, 1])
      expect(counts(repo)).toEqual([2, 2, 1, 1])
      // Another connection (another process) removes one and adds one with the same passage count.
      const other = new EngineRepo(openDatabase(path).$client)
      other.removeSection('s2')
      putSections(other, [{ base: 'cor_a', id: 's3', doc: 'd3', passages: ['Gdansk lies on the Baltic.'] }])
      expect(counts(repo)).toEqual([2, 1, 0, 0])
      other.client.close()
      repo.client.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test('pinning restricts matches to the given documents', () => {
    const repo = repoWith([
      { base: 'cor_a', id: 's1', doc: 'd1', passages: ['Tesla worked in New York.'] },
      { base: 'cor_a', id: 's2', doc: 'd2', passages: ['Edison worked in New York.'] },
    ])
    const key = repo.baseKey('cor_a')!
    const hits = repo.match(key, ['work', 'york'], 10, ['d2'])
    expect(repo.passages(hits.map((h) => h.id)).map((p) => p.documentId)).toEqual(['d2'])
  })
})

describe('each base in an index of its own', () => {
  const TEXT =
    'Copper wire carries current in many homes. Copper and copper alloys are prized by engineers. ' +
    'Aluminium wire is lighter than other metals used for power lines. Glass is made from sand. ' +
    'The 1973 oil crisis began when OAPEC proclaimed an embargo; oil prices rose fourfold.'

  test("a passage's terms read again from its text are the ones compiling found", () => {
    const cart = compileCartridge(TEXT)
    const inputs = passageInputs(cart)
    expect(inputs.length).toBeGreaterThan(0)
    for (const p of inputs) expect(passageTerms(p.text, p.sents)).toEqual(p.terms)
  })

  test('a base indexed in the shared table moves to its own on its first search, and ranks as a new one', () => {
    const db = openDatabase(':memory:')
    migrate(db, migrations)
    const repo = new EngineRepo(db.$client)
    const inputs = passageInputs(compileCartridge(TEXT))
    // A base as an older version left it: in the shared table (own_index 0; a passage count that is
    // not zero, so putting a section does not move it).
    db.$client.run(
      "INSERT INTO engine_bases (base_id, key, n_passages, own_index) VALUES ('cor_old', 1, 1, 0)",
    )
    const put = (base: string) =>
      repo.putSection(
        {
          sectionId: `${base}_s`,
          baseId: base,
          documentId: `${base}_d`,
          title: 't',
          filename: 'f.txt',
          cartKey: 'k',
          nPassages: 0,
        },
        inputs,
      )
    put('cor_old')
    db.$client.run("UPDATE engine_bases SET n_passages = n_passages - 1 WHERE base_id = 'cor_old'")
    put('cor_new')
    const shared = () =>
      db.$client.query(`SELECT rowid FROM engine_fts WHERE engine_fts MATCH '"1xcopper"'`).all()
    expect(shared().length).toBeGreaterThan(0)
    const ranked = (base: string, q: string) => {
      const key = repo.openBase(base)!.key
      return repo.match(key, contentTerms(q), 10).map((h) => [repo.passages([h.id])[0]!.text, h.rank])
    }
    for (const q of ['copper wire', 'oil embargo prices', 'glass sand']) {
      expect(ranked('cor_old', q)).toEqual(ranked('cor_new', q))
    }
    expect(shared()).toEqual([])
    expect(db.$client.query("SELECT own_index FROM engine_bases WHERE base_id = 'cor_old'").get()).toEqual({
      own_index: 1,
    })
  })

  test("a search while another flow's unit is open on the connection does not move the base inside that unit", async () => {
    const db = openDatabase(':memory:')
    migrate(db, migrations)
    const repo = new EngineRepo(db.$client)
    const inputs = passageInputs(compileCartridge(TEXT))
    db.$client.run(
      "INSERT INTO engine_bases (base_id, key, n_passages, own_index) VALUES ('cor_old', 1, 1, 0)",
    )
    const section = { baseId: 'cor_old', documentId: 'd', title: 't', filename: 'f.txt', cartKey: 'k' }
    repo.putSection({ ...section, sectionId: 's1', nPassages: 0 }, inputs)
    db.$client.run("UPDATE engine_bases SET n_passages = n_passages - 1 WHERE base_id = 'cor_old'")
    const ranked = () => {
      const key = repo.openBase('cor_old')!.key
      return repo.match(key, contentTerms('copper wire'), 10).map((h) => repo.passages([h.id])[0]!.text)
    }
    const ownIndex = () =>
      db.$client.query("SELECT own_index FROM engine_bases WHERE base_id = 'cor_old'").get()
    // A unit of the features' store open on the same connection (SQLite mode) that then rolls back.
    let during: string[] = []
    const failed = sqliteStore(db).unit(async () => {
      await Promise.resolve()
      during = ranked()
      throw new Error('rolled back')
    })
    await expect(failed).rejects.toThrow('rolled back')
    expect(during.length).toBeGreaterThan(0)
    expect(ownIndex()).toEqual({ own_index: 0 })
    // The next search, with no unit open, moves it, and ranks the same.
    expect(ranked()).toEqual(during)
    expect(ownIndex()).toEqual({ own_index: 1 })
  })
})
