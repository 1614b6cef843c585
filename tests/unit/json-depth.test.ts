import { describe, expect, test } from 'bun:test'
import { jsonTooDeep } from '../../src/platform/http/json-depth'

describe('jsonTooDeep', () => {
  test('counts nesting of arrays and objects up to the bound', () => {
    expect(jsonTooDeep('[[[1]]]', 3)).toBe(false)
    expect(jsonTooDeep('[[[[1]]]]', 3)).toBe(true)
    expect(jsonTooDeep('{"a":{"b":[{}]}}', 3)).toBe(true)
    expect(jsonTooDeep('[[]][[]][[]]', 2)).toBe(false)
  })

  test('brackets inside strings do not count, whatever the escapes before the closing quote', () => {
    expect(jsonTooDeep('["[[[[[[", "{{{{{{"]', 1)).toBe(false)
    expect(jsonTooDeep(String.raw`["a \" [[[[ still inside", 1]`, 1)).toBe(false)
    expect(jsonTooDeep(String.raw`["ends with a backslash \\", [[1]]]`, 2)).toBe(true)
    expect(jsonTooDeep(String.raw`["ends with a backslash \\", [1]]`, 2)).toBe(false)
    expect(jsonTooDeep(String.raw`["\\\"[[[[", 1]`, 1)).toBe(false)
  })

  test('an unterminated string ends the text; brackets in a long string are skipped', () => {
    expect(jsonTooDeep('["never closed [[[[[', 1)).toBe(false)
    const long = JSON.stringify({ content: 'x['.repeat(4_000_000) })
    expect(jsonTooDeep(long, 2)).toBe(false)
    expect(jsonTooDeep(`[[[${long}]]]`, 2)).toBe(true)
  })
})
