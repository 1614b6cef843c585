// Reads the composition root (src/app.ts) as source, with the TypeScript parser: which feature each
// variable holds, which features each factory is given, and any name used before its declaration
// has ended (a closure that reaches a feature built later in the list).
import ts from 'typescript'

/** One feature as app.ts builds it. */
export interface ComposedFeature {
  /** The folder under src/features, from the factory's name (`platformInfoFeature` → `platform-info`). */
  name: string
  /** The features whose services (or feature objects) its factory is given, in folder names. */
  uses: string[]
}

/** A name read before its declaration ended, with the line it is read on. */
export interface ForwardReference {
  name: string
  line: number
}

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

/** The folder a call builds, when it is a call to a feature factory (`corporaFeature(...)`). */
function factoryOf(node: ts.Node): string | null {
  if (!ts.isCallExpression(node) || !ts.isIdentifier(node.expression)) return null
  const m = /^([a-z][A-Za-z]*)Feature$/.exec(node.expression.text)
  return m ? kebab(m[1]!) : null
}

/** The first feature factory called within `node`, if any. */
function factoryWithin(node: ts.Node): { folder: string; call: ts.CallExpression } | null {
  const folder = factoryOf(node)
  if (folder) return { folder, call: node as ts.CallExpression }
  return ts.forEachChild(node, factoryWithin) ?? null
}

/** Identifiers that are read (not declared, not a property name, not in a type). */
function readsIn(node: ts.Node, out: ts.Identifier[] = []): ts.Identifier[] {
  if (ts.isTypeNode(node)) return out
  if (ts.isIdentifier(node) && isRead(node)) out.push(node)
  ts.forEachChild(node, (c) => void readsIn(c, out))
  return out
}

function isRead(id: ts.Identifier): boolean {
  const p = id.parent
  if (ts.isShorthandPropertyAssignment(p)) return true
  if (ts.isPropertyAccessExpression(p) && p.name === id) return false
  if (ts.isQualifiedName(p) && p.right === id) return false
  if (
    (ts.isPropertyAssignment(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isPropertySignature(p) ||
      ts.isBindingElement(p)) &&
    p.name === id
  )
    return false
  if (ts.isBindingElement(p) && p.propertyName === id) return false
  if (
    (ts.isVariableDeclaration(p) ||
      ts.isParameter(p) ||
      ts.isFunctionDeclaration(p) ||
      ts.isTypeParameterDeclaration(p)) &&
    p.name === id
  )
    return false
  if (ts.isImportSpecifier(p) || ts.isImportClause(p) || ts.isExportSpecifier(p)) return false
  return true
}

/** Every name a binding pattern declares. */
function boundNames(name: ts.BindingName): string[] {
  if (ts.isIdentifier(name)) return [name.text]
  return name.elements.flatMap((e) => (ts.isBindingElement(e) ? boundNames(e.name) : []))
}

/**
 * Names read before their declaration has ended: a `const` or `let` of a block read earlier in it
 * (a closure built above it that would reach it later included). Parameters shadow as they should.
 */
export function forwardReferences(source: string): ForwardReference[] {
  const file = ts.createSourceFile('app.ts', source, ts.ScriptTarget.Latest, true)
  const out: ForwardReference[] = []
  type Scope = Map<string, number>
  const visit = (node: ts.Node, scopes: Scope[]): void => {
    if (ts.isTypeNode(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return
    let inner = scopes
    if (ts.isFunctionLike(node)) {
      const params: Scope = new Map()
      for (const p of node.parameters) for (const n of boundNames(p.name)) params.set(n, -1)
      inner = [...scopes, params]
    } else if (ts.isBlock(node) || ts.isSourceFile(node)) {
      const block: Scope = new Map()
      for (const s of node.statements) {
        if (!ts.isVariableStatement(s)) continue
        for (const d of s.declarationList.declarations)
          for (const n of boundNames(d.name)) block.set(n, d.end)
      }
      inner = [...scopes, block]
    }
    if (ts.isIdentifier(node) && isRead(node)) {
      for (let i = inner.length - 1; i >= 0; i--) {
        const end = inner[i]!.get(node.text)
        if (end === undefined) continue
        if (node.getStart() < end) {
          out.push({ name: node.text, line: file.getLineAndCharacterOfPosition(node.getStart()).line + 1 })
        }
        break
      }
    }
    ts.forEachChild(node, (c) => visit(c, inner))
  }
  visit(file, [])
  return out
}

/**
 * The features app.ts builds, in order, with the features each factory is given. A variable holds
 * a feature when its initialiser calls a factory (`const f = corporaFeature(...)`) or hands on one
 * that does (`const corpora = use(f)`).
 */
export function composedFeatures(source: string): ComposedFeature[] {
  const file = ts.createSourceFile('app.ts', source, ts.ScriptTarget.Latest, true)
  const holds = new Map<string, string>()
  const out: ComposedFeature[] = []
  const visit = (node: ts.Node): void => {
    const call = ts.isCallExpression(node) ? factoryWithin(node) : null
    if (call && call.call === node) {
      const uses = call.call.arguments
        .flatMap((a) => readsIn(a))
        .map((id) => holds.get(id.text))
        .filter((f): f is string => f !== undefined && f !== call.folder)
      out.push({ name: call.folder, uses: [...new Set(uses)] })
    }
    ts.forEachChild(node, visit)
    // After its initialiser is read: a variable holds the feature its initialiser builds or passes on.
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) {
      const built = factoryWithin(node.initializer)?.folder
      const passed = readsIn(node.initializer)
        .map((id) => holds.get(id.text))
        .find((f) => f !== undefined)
      const folder = built ?? passed
      if (folder) holds.set(node.name.text, folder)
    }
  }
  visit(file)
  return out
}
