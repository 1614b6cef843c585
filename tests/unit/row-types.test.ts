// Row types come from the tables (`typeof table.$inferSelect`, `Pick<...>`, intersections for joins),
// never written by hand beside them: a hand-written row drifts from its table without a compiler
// error (a column added, renamed or made nullable). The TypeScript parser finds every interface and
// object type alias named `...Row` in src/, also those declared inside a function.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

const ROOT = join(import.meta.dir, '..', '..')
const SRC = join(ROOT, 'src')

function sourceFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path))
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

/** The names of the row types `text` writes by hand: `interface XRow` and `type XRow = { ... }`. */
export function handWrittenRows(text: string, file = 'file.ts'): string[] {
  const found: string[] = []
  const visit = (node: ts.Node) => {
    if (ts.isInterfaceDeclaration(node) && node.name.text.endsWith('Row')) found.push(node.name.text)
    if (ts.isTypeAliasDeclaration(node) && node.name.text.endsWith('Row') && isObjectType(node.type)) {
      found.push(node.name.text)
    }
    ts.forEachChild(node, visit)
  }
  visit(ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true))
  return found
}

function isObjectType(t: ts.TypeNode): boolean {
  if (ts.isParenthesizedTypeNode(t)) return isObjectType(t.type)
  // `{ ... } | null` is a hand-written row all the same.
  if (ts.isUnionTypeNode(t)) return t.types.some(isObjectType)
  return ts.isTypeLiteralNode(t) || ts.isMappedTypeNode(t)
}

describe('row types', () => {
  test('no file in src/ writes a *Row interface or object type by hand', () => {
    const found = sourceFiles(SRC).flatMap((path) =>
      handWrittenRows(readFileSync(path, 'utf8'), path).map((name) => `${relative(ROOT, path)}: ${name}`),
    )
    expect(found).toEqual([])
  })

  test('the check finds hand-written rows, also inside functions, and lets inferred ones pass', () => {
    const text = `
      export interface SectionRow { id: string }
      interface Row { n: number }
      type PlainRow = { id: string } | null
      export type InferredRow = typeof sections.$inferSelect
      export type PickedRow = Pick<InferredRow, 'id'> & { title: string }
      export type TupleRow = [string, number]
      interface Section { id: string }
      function f() { type LocalRow = { document_id: string }; return null as unknown as LocalRow }
    `
    expect(handWrittenRows(text)).toEqual(['SectionRow', 'Row', 'PlainRow', 'LocalRow'])
  })
})
