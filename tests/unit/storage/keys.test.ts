import { describe, expect, test } from 'bun:test'
import {
  assertDeletablePrefix,
  assertValidKey,
  MAX_KEY_BYTES,
  objectKey,
  objectPrefix,
} from '../../../src/platform/storage/keys'
import { InvalidObjectKeyError } from '../../../src/platform/storage/object-store'

const refused = (f: () => unknown) => expect(f).toThrow(InvalidObjectKeyError)

describe('object keys', () => {
  test('objectKey joins a workspace id and parts into a key that starts with the workspace', () => {
    expect(objectKey('ws_1', 'doc_2', 'raw')).toBe('ws_1/doc_2/raw')
    expect(objectKey('ws_1', 'cartridges', 'cart_9.bin')).toBe('ws_1/cartridges/cart_9.bin')
  })

  test('objectKey refuses parts that would add segments or climb out', () => {
    refused(() => objectKey('ws_1'))
    refused(() => objectKey('ws_1', 'a/b'))
    refused(() => objectKey('ws_1', '..'))
    refused(() => objectKey('ws_1', '.'))
    refused(() => objectKey('ws_1', ''))
    refused(() => objectKey('ws_1', 'a\u0000'))
    refused(() => objectKey('../ws_1', 'a'))
    refused(() => objectKey('ws/1', 'a'))
    refused(() => objectKey('', 'a'))
  })

  test('objectPrefix ends with a slash so it can be bulk-deleted', () => {
    expect(objectPrefix('ws_1')).toBe('ws_1/')
    expect(objectPrefix('ws_1', 'doc_2')).toBe('ws_1/doc_2/')
    expect(() => assertDeletablePrefix(objectPrefix('ws_1', 'doc_2'))).not.toThrow()
    refused(() => objectPrefix('ws_1', 'x/y'))
  })

  test('keys are capped at 1024 UTF-8 bytes, counting multi-byte characters by their bytes', () => {
    expect(() => assertValidKey(`ws_1/${'a'.repeat(MAX_KEY_BYTES - 5)}`)).not.toThrow()
    refused(() => assertValidKey(`ws_1/${'a'.repeat(MAX_KEY_BYTES - 4)}`))
    refused(() => assertValidKey(`ws_1/${'é'.repeat(510)}`))
  })

  test('ordinary names with dots, spaces and unicode inside segments are valid keys', () => {
    for (const k of ['ws_1/report v2.final.pdf', 'ws_1/a..b', 'ws_1/.hidden', 'ws_1/日本語.txt']) {
      expect(() => assertValidKey(k)).not.toThrow()
    }
  })

  test('a deletable prefix is non-empty and ends at a segment boundary', () => {
    refused(() => assertDeletablePrefix(''))
    refused(() => assertDeletablePrefix('ws_1'))
    refused(() => assertDeletablePrefix('/ws_1/'))
    refused(() => assertDeletablePrefix('ws_1/../'))
  })
})
