import { afterAll, beforeAll, describe, expect, test } from 'bun:test'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { strToU8, zipSync } from 'fflate'
import { loadSet } from '../../bench/lib/retrieval-sets'
import { arguanaId, convertArguana } from '../../scripts/retrieval-sets/arguana'
import { writeBeirSet } from '../../scripts/retrieval-sets/beir'
import { convertCranfield, cranfieldGain } from '../../scripts/retrieval-sets/cranfield'
import { convertSciFact, pythonStrings } from '../../scripts/retrieval-sets/scifact'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'engram-convert-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('SciFact from its CSV export', () => {
  test("a NumPy array's printed strings are read with Python's quoting and escapes", () => {
    expect(pythonStrings(`['First.' "It's \\"so\\"."\n 'caf\\xe9 \\u2013 \\\\ \\' end.   \\n']`)).toEqual([
      'First.',
      'It\'s "so".',
      "café – \\ ' end.   \n",
    ])
    expect(pythonStrings('[]')).toEqual([])
  })

  test('becomes BEIR: trimmed sentences joined, train and dev claims, evidence and cited documents relevant', () => {
    const zip = zipSync({
      'corpus_train.csv': strToU8(
        "doc_id,title,abstract,structured\n7,T7,\"['A first.  \\n'\n 'A second.']\",False\n9,T9,\"['Nine.']\",False\n",
      ),
      'claims_train.csv': strToU8(
        'id,claim,evidence_doc_id,evidence_label,evidence_sentences,cited_doc_ids\n' +
          '1,Claim one.,7,SUPPORT,[0],[7 9]\n1,Claim one.,9,SUPPORT,[0],[7 9]\n2,Claim two.,,,[],[9]\n',
      ),
      'claims_validation.csv': strToU8(
        'id,claim,evidence_doc_id,evidence_label,evidence_sentences,cited_doc_ids\n5,Claim five.,,,[],[7]\n',
      ),
    })
    const set = convertSciFact(zip)
    expect(set.corpus).toEqual([
      { id: '7', title: 'T7', text: 'A first. A second.' },
      { id: '9', title: 'T9', text: 'Nine.' },
    ])
    expect(set.queries.map((q) => q.id)).toEqual(['1', '2', '5'])
    expect(set.qrels.train!.map((j) => `${j.query}:${j.doc}:${j.score}`)).toEqual(['1:7:1', '1:9:1', '2:9:1'])
    expect(set.qrels.test!.map((j) => `${j.query}:${j.doc}`)).toEqual(['5:7'])
  })
})

describe('Cranfield', () => {
  test("Cleverdon's codes 1..4 become gains 4..1 and -1 judges nothing", () => {
    expect([1, 2, 3, 4, -1, 5].map(cranfieldGain)).toEqual([4, 3, 2, 1, null, null])
  })

  test('queries are numbered by their order, not their .I ids, and the set reads back in the bench', () => {
    const src = join(dir, 'cran')
    const out = join(dir, 'cranfield')
    mkdirSync(src)
    writeFileSync(
      join(src, 'cran.all.1400'),
      '.I 1\n.T\nwing flow .\n.A\nsomeone\n.W\nwing flow .\nlift of a wing .\n.I 2\n.T\nheat .\n.W\nheat transfer .\n',
    )
    writeFileSync(join(src, 'cran.qry'), '.I 001\n.W\nwhat about wings .\n.I 004\n.W\nwhat about\nheat .\n')
    writeFileSync(join(src, 'cranqrel'), '1 1 2\n1 2 -1\n2 2 4 \n2 2 1\n')
    const set = convertCranfield(src)
    expect(set.corpus[0]).toEqual({ id: '1', title: 'wing flow .', text: 'wing flow . lift of a wing .' })
    expect(set.queries).toEqual([
      { id: '1', text: 'what about wings .' },
      { id: '2', text: 'what about heat .' },
    ])
    writeBeirSet(out, set)
    const loaded = loadSet(out)
    expect(loaded.splits.map((s) => [s.name, s.tuning])).toEqual([['test', false]])
    expect(loaded.splits[0]!.queries.map((q) => [q.id, [...q.judged]])).toEqual([
      ['1', [['1', 3]]],
      ['2', [['2', 4]]],
    ])
  })
})

describe('ArguAna from the Counterargs corpus', () => {
  test('a point is a query whose counter is its one relevant document; validation tunes, test is held out', () => {
    const src = join(dir, 'arguana')
    const put = (path: string, text: string) => {
      mkdirSync(join(src, path, '..'), { recursive: true })
      writeFileSync(join(src, path), text)
    }
    const debate = 'animals-environment-general-health'
    put(`test/environment/${debate}/pro/pro01a-point.txt`, 'Meat harms\n\nFarming  pollutes rivers.\n')
    put(`test/environment/${debate}/pro/pro01b-counter.txt`, 'Grazing keeps meadows.')
    put(`test/environment/${debate}/con/con01a-point.txt`, 'A point without its counter.')
    put(`test/environment/${debate}/thesis.txt`, 'This House would go vegetarian')
    put('validation/sport/ban-boxing/con/con01a-point.txt', 'Boxing injures.')
    put('validation/sport/ban-boxing/con/con01b-counter.txt', 'Adults may choose.')
    expect(arguanaId('test', 'environment', debate, 'pro01b-counter.txt')).toBe(
      'test-environment-aegh-pro01b',
    )
    const set = convertArguana(src)
    expect(set.corpus.map((d) => d.id)).toEqual([
      'validation-sport-bb-con01a',
      'validation-sport-bb-con01b',
      'test-environment-aegh-pro01a',
      'test-environment-aegh-pro01b',
      'test-environment-aegh-con01a',
    ])
    expect(set.corpus[2]).toEqual({
      id: 'test-environment-aegh-pro01a',
      title: 'animals environment general health',
      text: 'Meat harms Farming pollutes rivers.',
    })
    expect(set.qrels.dev!.map((j) => `${j.query}:${j.doc}`)).toEqual([
      'validation-sport-bb-con01a:validation-sport-bb-con01b',
    ])
    expect(set.qrels.test!.map((j) => `${j.query}:${j.doc}`)).toEqual([
      'test-environment-aegh-pro01a:test-environment-aegh-pro01b',
    ])
    writeBeirSet(join(dir, 'arguana-out'), set)
    const loaded = loadSet(join(dir, 'arguana-out'))
    expect(loaded.splits.map((s) => [s.name, s.tuning, s.queries.length])).toEqual([
      ['dev', true, 1],
      ['test', false, 1],
    ])
  })
})
