import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { composedFeatures } from '../helpers/composition'

// docs/architecture.md stays true to the code (issue 33): its feature list names exactly the
// folders of src/features, and its table of who uses whom is the list in src/app.ts, in order.

const ROOT = resolve(import.meta.dir, '../..')
const DOC = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8')
const FOLDERS = readdirSync(join(ROOT, 'src/features'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()

/** The rows of the first table under the heading `## <title>`, as arrays of cell texts. */
function tableUnder(title: string): string[][] {
  const start = DOC.indexOf(`\n## ${title}\n`)
  if (start < 0) throw new Error(`docs/architecture.md has no section "${title}"`)
  const next = DOC.indexOf('\n## ', start + 1)
  const lines = DOC.slice(start, next < 0 ? undefined : next).split('\n')
  const first = lines.findIndex((l) => l.startsWith('|'))
  const rows: string[][] = []
  for (const line of lines.slice(first)) {
    if (!line.startsWith('|')) break
    rows.push(
      line
        .slice(1, -1)
        .split('|')
        .map((c) => c.trim()),
    )
  }
  // The header and the rule under it are not rows.
  return rows.slice(2)
}

describe('docs/architecture.md', () => {
  test('its feature list names every folder of src/features, and nothing else', () => {
    const named = tableUnder('Features').map((r) => r[0]!)
    expect([...named].sort()).toEqual(FOLDERS)
    expect(new Set(named).size).toBe(named.length)
  })

  test('its table of who uses whom is the list in src/app.ts, in order, with the same uses', () => {
    const rows = tableUnder('Features are built by factories')
    const documented = rows.map((r) => ({
      name: r[0]!,
      // The features named in the "uses" cell; notes in parentheses name none.
      uses: (r[1]!.replace(/\([^)]*\)/g, '').match(/[a-z][a-z-]*/g) ?? []).filter((w) => FOLDERS.includes(w)),
    }))
    const app = composedFeatures(readFileSync(join(ROOT, 'src/app.ts'), 'utf8'))
    expect(documented).toEqual(app)
  })
})
