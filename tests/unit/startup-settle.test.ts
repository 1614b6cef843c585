import { describe, expect, test } from 'bun:test'
import { settleStartup } from '../../src/cli/serve'

// `engram serve` settles once start-up is done: its garbage collected first, then the executable's
// embedded pages it read given back (an idle server's resident set is read right after start-up).
describe('settleStartup', () => {
  test('collects, then gives the embedded pages back, once', () => {
    const calls: string[] = []
    settleStartup({
      collect: () => calls.push('collect'),
      release: () => {
        calls.push('release')
        return 0
      },
    })
    expect(calls).toEqual(['collect', 'release'])
  })
})
