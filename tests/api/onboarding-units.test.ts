import { afterEach, describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { UnitsRepo } from '../../src/features/corpora/corpora.units.repo'
import type { TestApp } from '../helpers/app'
import { FIXTURE_SQUAD } from '../helpers/fixture-data'
import { createCorpus, upload } from '../helpers/ready-base'
import { authApp, signUp } from './accounts.fixture'

let t: TestApp
afterEach(() => t.close())

const article = (name: string) => readFileSync(join(FIXTURE_SQUAD, 'articles', name), 'utf8')

describe("a run's units read a group at a time", () => {
  test('give the rows and leaves that reading them one by one gives: sections, whole files, parents, gone ids', async () => {
    t = authApp()
    const admin = await signUp(t)
    const corpusId = await createCorpus(t, admin.token, 'B')
    await upload(t, admin.token, corpusId, [
      { path: 'eu.txt', text: article('European_Union_law.txt') },
      { path: 'oil.txt', text: 'The 1973 oil crisis began in October 1973.' },
      { path: 'tesla.txt', text: article('Nikola_Tesla.txt') },
    ])
    await t.jobs.scheduler.drain()
    const repo = new UnitsRepo(t.store)
    const units = await repo.units(corpusId, true)
    const parents = (
      await t.sql.all<{ id: string }>(
        'SELECT id FROM documents WHERE corpus_id = ? AND parent_id IS NULL',
        corpusId,
      )
    ).map((r) => r.id)
    // Sections and whole files (the units), their parents, an id that is no row.
    const ids = [...units.map((u) => u.id), ...parents, 'doc_gone']
    expect(units.length).toBeGreaterThan(parents.length)
    const byId = await repo.unitsById(ids)
    const leaves = await repo.leavesOfAll(ids)
    let sectioned = 0
    for (const id of ids) {
      expect(byId.get(id) ?? null).toEqual(await repo.unit(id))
      const one = await repo.leavesOf(id)
      expect(leaves.get(id)).toEqual(one)
      if (parents.includes(id) && one.length > 1) sectioned++
    }
    expect(leaves.get('doc_gone')).toEqual([])
    expect(sectioned).toBeGreaterThan(0)
  })
})
