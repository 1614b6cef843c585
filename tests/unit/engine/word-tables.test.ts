import { describe, expect, test } from 'bun:test'
import { WordTables } from '../../../src/features/engine/engine.word-tables'

// The tables questions read are built on a compile thread when a run or an upload starts, and a
// question waits for that build (Engine.ask). A server that loaded them at start-up (it held bases)
// must not build them again, nor make questions wait for that build.
describe('WordTables', () => {
  test('before the tables are loaded, a start builds the synonym table elsewhere once, and questions wait for it', async () => {
    let builds = 0
    const tables = new WordTables(() => {
      builds++
      return Promise.reject(new Error('no thread here'))
    })
    tables.startElsewhere()
    tables.startElsewhere()
    expect(builds).toBe(1)
    expect(tables.ready()).toBeInstanceOf(Promise)
    await tables.ready()
  })

  test('once the tables are loaded, a start builds nothing elsewhere and questions wait for nothing', async () => {
    let builds = 0
    const tables = new WordTables(() => {
      builds++
      return Promise.reject(new Error('no thread here'))
    })
    await tables.load()
    tables.startElsewhere()
    expect(builds).toBe(0)
    expect(tables.ready()).toBeUndefined()
  })
})
