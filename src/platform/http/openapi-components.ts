// The `components.schemas` of the OpenAPI document: TypeBox schemas turned into plain JSON Schema,
// their named parts hoisted and referenced.
import type { TSchema } from '@sinclair/typebox'

/** A reference to a component schema. */
export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })

/** Keys whose values are data, not sub-schemas: never searched for named schemas. */
const DATA_KEYWORDS = new Set(['default', 'const', 'enum', 'examples', 'example'])

/**
 * The component schemas of the document. A TypeBox schema given `$id: 'Name'` in its feature's
 * schemas file becomes `components.schemas.Name` wherever it appears (at the top of a body or
 * nested in another schema) and is referenced with `$ref`: naming is decided next to the schema,
 * never listed here. Two different schemas under one name are a programming error.
 */
export class Components {
  readonly schemas: Record<string, unknown> = {}
  private readonly defined = new Map<string, string>()

  constructor(fixed: Record<string, unknown>) {
    for (const [name, schema] of Object.entries(fixed)) this.define(name, schema)
  }

  /** A plain JSON copy of a TypeBox schema, its named parts replaced by references. */
  use(schema: TSchema | Record<string, unknown>): unknown {
    return this.hoist(JSON.parse(JSON.stringify(schema)))
  }

  /** Registers `schema` under `name` (idempotent for an identical schema) and returns its `$ref`. */
  define(name: string, schema: unknown): { $ref: string } {
    const json = JSON.stringify(schema)
    const before = this.defined.get(name)
    if (before !== undefined && before !== json) {
      throw new Error(`OpenAPI: two different schemas are named ${name}; give one another $id.`)
    }
    if (before === undefined) {
      this.defined.set(name, json)
      this.schemas[name] = schema
    }
    return ref(name)
  }

  private hoist(node: unknown): unknown {
    if (Array.isArray(node)) return node.map((n) => this.hoist(n))
    if (node === null || typeof node !== 'object') return node
    const out: Record<string, unknown> = {}
    let name: string | null = null
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      // `$id` would also re-base every nested `$ref` under JSON Schema 2020-12: drop it.
      if (k === '$id') name = typeof v === 'string' ? v : null
      else if (k === 'properties' && v && typeof v === 'object') {
        out[k] = Object.fromEntries(Object.entries(v).map(([p, s]) => [p, this.hoist(s)]))
      } else out[k] = DATA_KEYWORDS.has(k) ? v : this.hoist(v)
    }
    return name ? this.define(name, out) : out
  }
}

/** The component name a `$ref` points to, or null for an inline schema. */
export function refName(schema: unknown): string | null {
  const r = (schema as { $ref?: unknown } | null)?.$ref
  return typeof r === 'string' ? r.slice('#/components/schemas/'.length) : null
}
