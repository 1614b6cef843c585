import { expect, test } from 'bun:test'
import { lookUpTogether } from '../../src/platform/concurrency/together'

test('look-ups made together are answered by one call with all their keys; a later one by another', async () => {
  const calls: string[][] = []
  const rows = new Map([
    ['a', 1],
    ['b', 2],
    ['c', 3],
  ])
  const find = lookUpTogether(async (keys: string[]) => {
    calls.push(keys)
    return new Map(keys.flatMap((k) => (rows.has(k) ? [[k, rows.get(k)!] as const] : [])))
  })
  expect(await Promise.all(['a', 'b', 'x'].map(find))).toEqual([1, 2, undefined])
  expect(calls).toEqual([['a', 'b', 'x']])
  expect(await find('c')).toBe(3)
  expect(calls).toEqual([['a', 'b', 'x'], ['c']])
})

test('a failing batch rejects each of its look-ups, and the next batch is asked anew', async () => {
  let fail = true
  const find = lookUpTogether(async (keys: string[]) => {
    if (fail) throw new Error('store away')
    return new Map(keys.map((k) => [k, k.length]))
  })
  const both = await Promise.allSettled([find('aa'), find('b')])
  expect(both.map((r) => (r.status === 'rejected' ? (r.reason as Error).message : r.value))).toEqual([
    'store away',
    'store away',
  ])
  fail = false
  expect(await Promise.all([find('aa'), find('b')])).toEqual([2, 1])
})
