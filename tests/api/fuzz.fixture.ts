import fc from 'fast-check'

/**
 * Arbitraries for the API fuzz suite (fuzz.test.ts): requests built from an operation of
 * /openapi.json, near-valid and hostile in their path, query, headers and body.
 */

type Json = Record<string, any>

/** One operation of the document. */
export interface Operation {
  method: string
  path: string
  op: Json
}

/** The credentials a fuzzed request may carry. */
export type Credential =
  | 'none'
  | 'session'
  | 'admin_key'
  | 'query_key'
  | 'garbage'
  | 'tampered'
  | 'long'
  | 'empty'
  | 'basic'

/** A request body as bytes, with the content type sent and what kind of hostility it carries. */
export interface FuzzBody {
  kind: string
  contentType: string | null
  bytes: Uint8Array
  /** Deepest nesting of brackets in the body (for the known deep-JSON failure). */
  depth: number
}

/** One generated request: it prints briefly (bodies can be a megabyte). */
export class FuzzRequest {
  constructor(
    readonly method: string,
    readonly url: string,
    readonly credential: Credential,
    readonly body: FuzzBody | null,
    readonly headers: Record<string, string>,
  ) {}

  [fc.toStringMethod](): string {
    const b = this.body
    const shown = b ? new TextDecoder().decode(b.bytes.slice(0, 160)) : ''
    const size = b
      ? ` ${b.kind} ${b.contentType} (${b.bytes.length} bytes, depth ${b.depth}) ${JSON.stringify(shown)}`
      : ''
    return `${this.method} ${this.url.slice(0, 300)} [${this.credential}] ${JSON.stringify(this.headers)}${size}`
  }
}

/** Ids of things that exist, so fuzzed requests also reach past the 404s. */
export interface KnownIds {
  [param: string]: string[]
}

const encoder = new TextEncoder()

/** Strings that have broken parsers, databases and logs before. */
const NASTY = [
  '',
  ' ',
  '\u0000',
  'a\u0000b',
  '\ud800',
  'x\udfffy',
  '\ud83d\ude00',
  '\u202e\u0007\u001b[31m',
  // A traversal payload sent to the server, not a file of this repository.
  `${'../'.repeat(3)}etc/passwd`,
  '..',
  '.',
  '%00',
  '%',
  '%zz',
  '%ED%A0%80',
  '%C0%AF',
  '%2F',
  '%2e%2e%2f',
  "'; DROP TABLE users; --",
  '<script>alert(1)</script>',
  '{"$gt": ""}',
  'null',
  '-1',
  '1e309',
  '9007199254740993',
  '0x10',
  'true',
  '\\',
  '/',
  '\r\nX-Injected: 1',
  '😀'.repeat(50),
  'a'.repeat(5000),
]

/** Any string, weighted towards the hostile ones, with lone surrogates and NUL mixed in. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { arbitrary: fc.constantFrom(...NASTY), weight: 3 },
  { arbitrary: fc.string({ maxLength: 40 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 40 }), weight: 2 },
  {
    arbitrary: fc
      .tuple(fc.string({ maxLength: 10 }), fc.constantFrom('\ud800', '\udc00', '\u0000', '\uffff', '\ufeff'))
      .map(([s, c]) => s + c + s),
    weight: 2,
  },
)

/** Wrong-typed JSON values, for any field. */
const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(Number.MAX_SAFE_INTEGER, -1, 0, 1e300, -0),
  nastyString,
  fc.array(fc.integer(), { maxLength: 3 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.integer(), { maxKeys: 3 }),
)

/** Resolves `$ref` against the document's components. */
function deref(doc: Json, schema: Json | undefined): Json {
  let s = schema ?? {}
  for (let i = 0; i < 10 && typeof s.$ref === 'string'; i++) {
    s = doc.components.schemas[s.$ref.split('/').pop() ?? '']
  }
  return s
}

/**
 * Values of a schema. `strict`: valid by type and shape (strings may still be hostile within their
 * bounds), to reach the handlers; otherwise wrong types, dropped required fields and extra fields
 * are mixed in at every level, to probe the checks.
 */
export function arbitraryOf(
  doc: Json,
  schema: Json | undefined,
  strict = false,
  depth = 0,
): fc.Arbitrary<unknown> {
  const valid = validValue(doc, deref(doc, schema), strict, depth)
  if (strict) return valid
  return fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: wrongValue, weight: 1 })
}

function validValue(doc: Json, s: Json, strict: boolean, depth: number): fc.Arbitrary<unknown> {
  if (depth > 6) return fc.constant(null)
  const alternatives = s.anyOf ?? s.oneOf
  if (Array.isArray(alternatives)) {
    return fc.oneof(...alternatives.map((a: Json) => arbitraryOf(doc, a, strict, depth + 1)))
  }
  if (Array.isArray(s.allOf)) return arbitraryOf(doc, s.allOf[0], strict, depth + 1)
  if ('const' in s) return fc.constant(s.const)
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum)
  const type = Array.isArray(s.type) ? s.type[0] : s.type
  switch (type) {
    case 'string':
      return stringOf(s, strict)
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1000, max: s.maximum ?? 1_000_000 })
    case 'number':
      return fc.double({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6, noNaN: true })
    case 'boolean':
      return fc.boolean()
    case 'null':
      return fc.constant(null)
    case 'array':
      return fc.array(arbitraryOf(doc, s.items, strict, depth + 1), {
        minLength: Math.min(s.minItems ?? 0, 3),
        maxLength: Math.min(s.maxItems ?? 3, 3),
      })
    case 'object':
      return objectOf(doc, s, strict, depth)
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

function stringOf(s: Json, strict: boolean): fc.Arbitrary<string> {
  const max = Math.min(s.maxLength ?? 60, 60)
  const min = Math.min(s.minLength ?? 0, max)
  let valid: fc.Arbitrary<string>
  if (s.format === 'email') valid = fc.emailAddress()
  else if (s.format === 'date-time') {
    valid = fc
      .date({ min: new Date('2000-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
      .map((d) => d.toISOString())
  } else if (typeof s.pattern === 'string') valid = fc.stringMatching(new RegExp(s.pattern))
  else valid = fc.string({ minLength: min, maxLength: max })
  if (strict) {
    if (s.format || s.pattern) return valid
    const fits = nastyString.filter((v) => v.length >= (s.minLength ?? 0) && v.length <= (s.maxLength ?? 1e9))
    return fc.oneof({ arbitrary: valid, weight: 3 }, { arbitrary: fits, weight: 1 })
  }
  const edges = fc.constantFrom('x'.repeat(s.maxLength ?? 300), 'x'.repeat((s.maxLength ?? 300) + 1))
  return fc.oneof(
    { arbitrary: valid, weight: 5 },
    { arbitrary: nastyString, weight: 2 },
    { arbitrary: edges, weight: 1 },
  )
}

function objectOf(doc: Json, s: Json, strict: boolean, depth: number): fc.Arbitrary<unknown> {
  const props: Json = s.properties ?? {}
  const required: string[] = s.required ?? []
  const model: Record<string, fc.Arbitrary<unknown>> = {}
  for (const [k, v] of Object.entries(props)) model[k] = arbitraryOf(doc, v as Json, strict, depth + 1)
  const base = fc.record(model, { requiredKeys: required.filter((k) => k in model) })
  if (strict) return base
  return fc
    .tuple(base, fc.option(fc.constantFrom(...required, 'unexpected'), { freq: 5 }), fc.option(wrongValue))
    .map(([o, drop, extra]) => {
      const out = { ...(o as Record<string, unknown>) }
      if (drop && drop !== 'unexpected') delete out[drop]
      if (extra !== null) out[drop === 'unexpected' ? 'unexpected' : '__proto__x'] = extra
      return out
    })
}

/** Deepest bracket nesting of a JSON text (strings skipped). */
function depthOf(text: string): number {
  let depth = 0
  let max = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (inString) {
      if (c === '\\') i++
      else if (c === '"') inString = false
    } else if (c === '"') inString = true
    else if (c === '[' || c === '{') max = Math.max(max, ++depth)
    else if (c === ']' || c === '}') depth--
  }
  return max
}

const jsonBody = (kind: string, text: string, contentType: string | null = 'application/json'): FuzzBody => ({
  kind,
  contentType,
  bytes: encoder.encode(text),
  depth: depthOf(text),
})

/** Bodies for a JSON route: near-valid, wrong types, deep, huge, badly encoded, mislabelled. */
export function jsonBodies(doc: Json, schema: Json | undefined, cap: number): fc.Arbitrary<FuzzBody> {
  const value = arbitraryOf(doc, schema)
  const strict = arbitraryOf(doc, schema, true)
  const stringField = Object.keys(deref(doc, schema).properties ?? {})[0] ?? 'name'
  return fc.oneof(
    { arbitrary: strict.map((v) => jsonBody('valid', JSON.stringify(v) ?? 'null')), weight: 6 },
    { arbitrary: value.map((v) => jsonBody('schema', JSON.stringify(v) ?? 'null')), weight: 6 },
    { arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => jsonBody('json', JSON.stringify(v))), weight: 2 },
    {
      // Deep nesting: arrays or objects, closed or not, up to 100,000 levels.
      arbitrary: fc
        .tuple(fc.integer({ min: 64, max: 100_000 }), fc.boolean(), fc.boolean())
        .map(([n, array, closed]) => {
          const open = array ? '[' : '{"a":'
          const close = array ? ']' : '}'
          return jsonBody('deep', open.repeat(n) + (array ? '' : '1') + (closed ? close.repeat(n) : ''))
        }),
      weight: 1,
    },
    {
      // A string at, just under and just over the body cap.
      arbitrary: fc.constantFrom(cap - 64, cap - 20, cap + 1, 64 * 1024).map((n) => {
        const prefix = `{"${stringField}":"`
        return jsonBody('huge', `${prefix}${'a'.repeat(Math.max(0, n - prefix.length - 2))}"}`)
      }),
      weight: 1,
    },
    {
      // Invalid UTF-8 inside a JSON string: lone continuation bytes, overlong forms, encoded surrogates.
      arbitrary: fc
        .constantFrom(
          [0xff],
          [0xc0, 0xaf],
          [0xed, 0xa0, 0x80],
          [0x80],
          [0xf4, 0x90, 0x80, 0x80],
          [0xe2, 0x82],
        )
        .map((bad) => {
          const head = encoder.encode(`{"${stringField}":"x`)
          const tail = encoder.encode('"}')
          return {
            kind: 'utf8',
            contentType: 'application/json',
            bytes: concat(head, new Uint8Array(bad), tail),
            depth: 1,
          }
        }),
      weight: 1,
    },
    {
      // Escaped lone surrogates and NUL in every string the schema has.
      arbitrary: value.map((v) =>
        jsonBody(
          'escapes',
          (JSON.stringify(v) ?? 'null').replace(/"([^"\\]*)"/g, (_m, s: string) => `"${s}\\ud800\\u0000"`),
        ),
      ),
      weight: 1,
    },
    {
      // The right body under the wrong or a malformed content type.
      arbitrary: fc
        .tuple(
          value,
          fc.constantFrom(
            null,
            'text/plain',
            'application/x-www-form-urlencoded',
            'multipart/form-data',
            'multipart/form-data; boundary=x',
            'application/json; charset=utf-16',
            'application/json;;;',
            'application/xml',
            '*/*',
            'application/vnd.api+json',
          ),
        )
        .map(([v, type]) => jsonBody('content-type', JSON.stringify(v) ?? 'null', type)),
      weight: 1,
    },
    {
      arbitrary: fc
        .uint8Array({ maxLength: 200 })
        .map((bytes) => ({ kind: 'bytes', contentType: 'application/json', bytes, depth: 0 })),
      weight: 1,
    },
    { arbitrary: fc.constant(jsonBody('empty', '')), weight: 1 },
  )
}

/** Bodies for a url-encoded form route. */
export function formBodies(doc: Json, schema: Json | undefined): fc.Arbitrary<FuzzBody> {
  const props = Object.keys(deref(doc, schema).properties ?? {})
  const field = fc.tuple(
    fc.constantFrom(...props, 'unexpected'),
    fc.oneof(nastyString, fc.string({ maxLength: 30 })),
  )
  const encoded = fc.array(field, { maxLength: 6 }).map((pairs) => {
    const form = new URLSearchParams()
    for (const [k, v] of pairs) form.append(k, v.replace(/[\ud800-\udfff]/g, '\ufffd'))
    return jsonBody('form', form.toString(), 'application/x-www-form-urlencoded')
  })
  const raw = fc
    .constantFrom(
      'username=%zz&password=%',
      'username=a%00b&password=%ED%A0%80',
      '&&&=&=',
      'a'.repeat(3000),
      '%',
    )
    .map((text) => jsonBody('form-raw', text, 'application/x-www-form-urlencoded'))
  const json = arbitraryOf(doc, schema).map((v) => jsonBody('form-as-json', JSON.stringify(v) ?? 'null'))
  return fc.oneof({ arbitrary: encoded, weight: 4 }, raw, json)
}

/** Bodies for a multipart upload route: real files with hostile names and broken multipart. */
export function multipartBodies(): fc.Arbitrary<FuzzBody> {
  const boundary = 'fuzzboundary'
  const part = fc.tuple(
    fc.constantFrom('files', 'file', ''),
    nastyString,
    fc.string({ maxLength: 100 }),
    fc.constantFrom('text/plain', 'application/pdf', 'application/octet-stream', ''),
  )
  const wellFormed = fc.array(part, { maxLength: 3 }).map((parts) => {
    let text = ''
    for (const [name, filename, content, type] of parts) {
      text += `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename.replace(/["\r\n]/g, '_')}"\r\n`
      if (type) text += `Content-Type: ${type}\r\n`
      text += `\r\n${content}\r\n`
    }
    text += `--${boundary}--\r\n`
    return jsonBody('multipart', text, `multipart/form-data; boundary=${boundary}`)
  })
  const broken = fc
    .tuple(
      fc.constantFrom(
        `--${boundary}\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\nunterminated`,
        `--${boundary}--`,
        'not multipart at all',
        `--other\r\n\r\n--other--`,
        '',
      ),
      fc.constantFrom(
        `multipart/form-data; boundary=${boundary}`,
        'multipart/form-data',
        'application/json',
        null,
      ),
    )
    .map(([text, type]) => jsonBody('multipart-broken', text, type))
  // File names as raw bytes (invalid UTF-8, NUL) and RFC 5987 `filename*` forms.
  const oddNames = fc
    .constantFrom<(string | number[])[]>(
      ['filename="a', [0xff, 0xfe], '.txt"'],
      ['filename="a', [0xed, 0xa0, 0x80], '.txt"'],
      ['filename="a', [0x00], 'b.txt"'],
      ["filename*=UTF-8''a%ED%A0%80b.txt"],
      ["filename*=UTF-8''a%00b.txt"],
      ["filename*=UTF-8''%2e%2e%2fetc"],
      ["filename*=bogus''x"],
    )
    .map((name) => {
      const bytes = concat(
        encoder.encode(`--${boundary}\r\nContent-Disposition: form-data; name="files"; `),
        ...name.map((p) => (typeof p === 'string' ? encoder.encode(p) : new Uint8Array(p))),
        encoder.encode(`\r\nContent-Type: text/plain\r\n\r\nhello\r\n--${boundary}--\r\n`),
      )
      return {
        kind: 'multipart-names',
        contentType: `multipart/form-data; boundary=${boundary}`,
        bytes,
        depth: 0,
      }
    })
  return fc.oneof({ arbitrary: wellFormed, weight: 3 }, broken, oddNames)
}

function concat(...parts: Uint8Array[]): Uint8Array {
  return new Uint8Array(Buffer.concat(parts))
}

/** A path or query value as it goes on the wire: encoded, or raw when it is meant to be malformed. */
export const onWire = (v: string): string => {
  if (/^%|%zz|%ED|%C0/.test(v) && NASTY.includes(v)) return v
  try {
    return encodeURIComponent(v)
  } catch {
    // A lone surrogate cannot be encoded as UTF-8: send its (invalid) three-byte form.
    return v.replace(/[\ud800-\udfff]/g, '%ED%A0%80').replace(/[^%A-Za-z0-9]/g, (c) => encodeURIComponent(c))
  }
}

/** Values for one path parameter: a real id some of the time, else anything. */
export function pathValue(name: string, known: KnownIds, method: string): fc.Arbitrary<string> {
  const real = known[name] ?? []
  // Never DELETE the fixtures themselves: later runs would only meet 404s.
  if (real.length === 0 || method === 'DELETE') return nastyString.map(onWire)
  return fc.oneof(
    { arbitrary: fc.constantFrom(...real), weight: 2 },
    { arbitrary: nastyString.map(onWire), weight: 1 },
  )
}

/**
 * A query string from the operation's parameters: half of the time only known parameters with
 * values of their type, else wrong types, unknown keys and repeats.
 */
export function queryString(doc: Json, params: Json[]): fc.Arbitrary<string> {
  const query = params.filter((p) => p.in === 'query')
  const render = (pairs: readonly (readonly [string, string])[]) =>
    pairs.length ? `?${pairs.map(([k, v]) => `${onWire(k)}=${onWire(v)}`).join('&')}` : ''
  const known = (strict: boolean) =>
    query.map((p) => fc.tuple(fc.constant(p.name as string), arbitraryOf(doc, p.schema, strict).map(text)))
  const valid = query.length
    ? fc.uniqueArray(fc.oneof(...known(true)), { maxLength: query.length, selector: ([k]) => k })
    : fc.constant([])
  const pair = fc.oneof(
    ...known(false),
    fc.tuple(fc.constantFrom('unexpected', '', '__proto__', 'limit', 'cursor'), nastyString),
    // Cursors that decode (base64url JSON arrays) but hold the wrong number or types of keys.
    fc.tuple(
      fc.constant('cursor'),
      fc
        .array(fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.double({ noNaN: true })), {
          maxLength: 4,
        })
        .map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
    ),
  )
  const hostile = fc.array(pair, { maxLength: query.length + 2 })
  return fc.oneof(valid, hostile).map(render)
}

/** A value as a query string holds it (objects as JSON: their own `toString` may be anything). */
const text = (v: unknown): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v))

/** Extra headers: idempotency keys (good and bad), odd accept headers, a request id. */
export const extraHeaders: fc.Arbitrary<Record<string, string>> = fc
  .record(
    {
      'idempotency-key': fc.oneof(
        fc.stringMatching(/^[\x21-\x7e]{1,40}$/),
        fc.constantFrom('', ' ', 'x'.repeat(300), 'key with spaces'),
      ),
      accept: fc.constantFrom('*/*', 'text/event-stream', 'application/xml', ''),
      'x-request-id': fc.constantFrom('fuzz-1', 'bad id\twith tab', 'x'.repeat(200)),
    },
    { requiredKeys: [] },
  )
  .map((h) => h as Record<string, string>)
