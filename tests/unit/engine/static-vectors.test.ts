import { describe, expect, test } from 'bun:test'
import { BUILTIN_MODEL, embedderFrom } from '../../../src/features/engine/embedder'
import { staticDims, staticVector } from '../../../src/features/engine/text/index'
import { ManualClock } from '../../../src/platform/clock/clock'
import { configDefinition } from '../../../src/platform/config/config.definition'
import { memoryLogger } from '../../../src/platform/log/log'

const cos = (a: string, b: string) => {
  const u = staticVector(a)
  const v = staticVector(b)
  return u.reduce((s, x, i) => s + x * v[i]!, 0)
}

describe('built-in static word vectors', () => {
  test('a text is the unit-length sum of its known words; stop words and unknown words count for nothing', () => {
    const v = staticVector('The oil crisis')
    expect(v).toHaveLength(staticDims())
    expect(Math.hypot(...v)).toBeCloseTo(1, 5)
    expect([...staticVector('oil crisis of the')]).toEqual([...v])
    expect([...staticVector('OIL, crisis!')]).toEqual([...v])
    expect(staticVector('the of and zzqxjv').every((x) => x === 0)).toBe(true)
  })

  test('words and texts that mean the same are closer than ones that do not', () => {
    expect(cos('car', 'automobile')).toBeGreaterThan(cos('car', 'banana') + 0.3)
    const q = 'What did he do to his feet at night?'
    expect(cos(q, 'He squished his toes into each foot every night.')).toBeGreaterThan(
      cos(q, 'The studio tour opened in 1990.') + 0.3,
    )
  })

  test('the embedder: the server when configured, else the built-in vectors unless turned off', async () => {
    const defaults = Object.fromEntries(
      Object.entries(configDefinition.embed).map(([k, leaf]) => [k, leaf.default]),
    ) as Parameters<typeof embedderFrom>[0]
    const make = (c: Partial<typeof defaults>) =>
      embedderFrom({ ...defaults, ...c }, new ManualClock('2026-01-01T00:00:00Z'), memoryLogger())
    const builtin = make({})!
    expect(builtin).toMatchObject({
      model: BUILTIN_MODEL,
      weight: configDefinition.embed.builtin_weight.default,
    })
    expect([...(await builtin.embed(['oil crisis']))[0]!]).toEqual([...staticVector('oil crisis')])
    expect(make({ builtin: false })).toBeNull()
    expect(make({ url: 'http://127.0.0.1:9/v1', model: 'mini' })).toMatchObject({ model: 'mini', weight: 3 })
  })
})
