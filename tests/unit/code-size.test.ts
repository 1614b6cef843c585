// The house keeps files and functions small enough to read in one sitting: no file in src/ over
// about 300 lines and no function over about 80, except declarative tables and route lists, which
// are listed below with the reason. The TypeScript parser finds the functions (declarations,
// methods, arrow functions and function expressions), so a long callback counts like any function.
import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import ts from 'typescript'

const ROOT = join(import.meta.dir, '..', '..')
const SRC = join(ROOT, 'src')
const MAX_FILE_LINES = 300
const MAX_FUNCTION_LINES = 80

/** Files that are declarative tables: long because they list, not because they do. */
const TABLES: Record<string, string> = {
  'src/platform/config/config.definition.ts': 'every configuration key with its type, default and help',
  'src/platform/db/migrations.generated.ts': 'generated: the embedded migrations',
}

function sourceFiles(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path))
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

interface LongFunction {
  file: string
  name: string
  lines: number
}

function functionName(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node }
  if (named.name && ts.isIdentifier(named.name)) return named.name.text
  if (ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name)) return node.parent.name.text
  if (ts.isPropertyAssignment(node.parent) && ts.isIdentifier(node.parent.name)) return node.parent.name.text
  return '(anonymous)'
}

/** A route list is a call whose arguments declare routes: `defineRoute({...})` bodies are data. */
function isRouteList(node: ts.Node, source: ts.SourceFile): boolean {
  const name = functionName(node)
  return /Routes$/.test(name) && source.fileName.endsWith('.routes.ts')
}

function longFunctions(file: string, text = readFileSync(file, 'utf8')): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: LongFunction[] = []
  const visit = (node: ts.Node) => {
    if (
      ts.isFunctionDeclaration(node) ||
      ts.isMethodDeclaration(node) ||
      ts.isArrowFunction(node) ||
      ts.isFunctionExpression(node) ||
      ts.isConstructorDeclaration(node) ||
      ts.isGetAccessor(node)
    ) {
      const body = (node as ts.FunctionLikeDeclarationBase).body
      if (body && !isRouteList(node, source)) {
        const start = source.getLineAndCharacterOfPosition(body.getStart(source)).line
        const end = source.getLineAndCharacterOfPosition(body.getEnd()).line
        const lines = end - start + 1
        if (lines > MAX_FUNCTION_LINES) {
          found.push({ file: relative(ROOT, file), name: functionName(node), lines })
        }
      }
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const files = sourceFiles(SRC)

describe('code size', () => {
  test(`no file in src/ is over ${MAX_FILE_LINES} lines, except declarative tables`, () => {
    const long = files
      .map((f) => ({ file: relative(ROOT, f), lines: readFileSync(f, 'utf8').split('\n').length }))
      .filter((f) => f.lines > MAX_FILE_LINES && !(f.file in TABLES))
      .map((f) => `${f.file}: ${f.lines} lines`)
    expect(long).toEqual([])
  })

  test(`no function in src/ is over ${MAX_FUNCTION_LINES} lines, except route lists`, () => {
    const long = files.flatMap((f) => longFunctions(f)).map((f) => `${f.file} ${f.name}: ${f.lines} lines`)
    expect(long).toEqual([])
  })

  test('the checker finds a long function', () => {
    // The rule can fail: a synthetic source with one 90-line function is caught.
    const body = Array.from({ length: 90 }, (_, i) => `  const v${i} = ${i}`).join('\n')
    const found = longFunctions(join(SRC, 'x.ts'), `function big() {\n${body}\n}\nconst small = () => 1\n`)
    expect(found.map((f) => f.name)).toEqual(['big'])
  })
})
