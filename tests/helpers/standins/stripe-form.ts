// Stripe's v1 API takes form-encoded bodies and queries with qs-style nested keys
// (`line_items[0][price_data][recurring][interval]=month`, `metadata[ws]=w1`, `expand[]=x`); this
// turns them back into the nested values the SDK started from. Every leaf stays a string, as on the
// wire: the handlers coerce what they read (`int`, `bool`).
import { StripeFail } from './stripe-store'

/** A decoded form: nested objects, arrays where every key was an index, strings at the leaves. */
export type Form = Record<string, unknown>

/** Parses `a[b][0][c]=v&...` into `{a: {b: [{c: 'v'}]}}`. */
export function parseForm(text: string): Form {
  const root: Form = {}
  for (const [rawKey, value] of new URLSearchParams(text)) {
    const head = rawKey.match(/^[^[]+/)?.[0] ?? rawKey
    const path = [head, ...[...rawKey.slice(head.length).matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!)]
    let node: Record<string, unknown> = root
    path.forEach((part, i) => {
      const key = part === '' ? String(Object.keys(node).length) : part
      if (i === path.length - 1) node[key] = value
      else {
        if (typeof node[key] !== 'object' || node[key] === null) node[key] = {}
        node = node[key] as Record<string, unknown>
      }
    })
  }
  return arrays(root) as Form
}

/** Objects whose keys are all indexes become arrays, in index order. */
function arrays(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v
  const entries = Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, arrays(x)] as const)
  if (entries.length > 0 && entries.every(([k]) => /^\d+$/.test(k)))
    return entries.sort((a, b) => Number(a[0]) - Number(b[0])).map(([, x]) => x)
  return Object.fromEntries(entries)
}

/** A string parameter, or null when absent or empty. */
export function str(v: unknown): string | null {
  return typeof v === 'string' && v !== '' ? v : null
}

/** An integer parameter; a non-integer is Stripe's `Invalid integer` 400 naming the parameter. */
export function int(v: unknown, param: string): number | null {
  if (v === undefined || v === '') return null
  if (typeof v !== 'string' || !/^-?\d+$/.test(v)) throw new StripeFail(400, `Invalid integer: ${v}`, param)
  return Number(v)
}

/** A boolean parameter (`true` / `false`). */
export function bool(v: unknown, param: string): boolean | null {
  if (v === undefined || v === '') return null
  if (v === 'true' || v === 'false') return v === 'true'
  throw new StripeFail(400, `Invalid boolean: ${String(v)}`, param)
}

/** An object parameter (a hash such as `metadata`), or {} when absent. */
export function hash(v: unknown, param: string): Record<string, unknown> {
  if (v === undefined || v === '') return {}
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new StripeFail(400, `Invalid hash`, param)
  return v as Record<string, unknown>
}

/** An array parameter, or [] when absent. */
export function list(v: unknown, param: string): unknown[] {
  if (v === undefined || v === '') return []
  if (!Array.isArray(v)) throw new StripeFail(400, `Invalid array`, param)
  return v
}

/** Applies a metadata update as Stripe does: keys set, an empty value unsets its key. */
export function mergeMetadata(old: Record<string, string>, update: unknown): Record<string, string> {
  if (update === '') return {}
  const out = { ...old }
  for (const [k, v] of Object.entries(hash(update, 'metadata'))) {
    if (v === '') delete out[k]
    else out[k] = String(v)
  }
  return out
}
