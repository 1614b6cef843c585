import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { CONSOLE_TYPES_FILE, renderConsoleTypes } from '../../scripts/console-types'

// The console's wire types are generated from the server's OpenAPI document and committed: a
// route or schema that changes without them makes this fail, so the console never reads a shape
// the server no longer sends.

describe('the console types', () => {
  test('web/src/api/openapi.gen.ts is what `npm run console:types` writes from the current document', async () => {
    const fresh = await renderConsoleTypes()
    const committed = readFileSync(CONSOLE_TYPES_FILE, 'utf8')
    if (committed !== fresh) {
      throw new Error(
        'web/src/api/openapi.gen.ts is out of date with /openapi.json: run `npm run console:types` and commit the file.',
      )
    }
    expect(fresh).toContain('export interface paths {')
  })
})
