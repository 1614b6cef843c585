import { parse as parseToml } from 'smol-toml'
import { issuerAllowed } from '../auth/oidc-issuer'
import { trustedProxyProblems } from '../http/trusted-proxies'
import { type ConfigDefinition, configDefinition, type Leaf } from './config.definition'

type LeafValue<L extends Leaf> = (L['kind'] extends { type: 'enum'; values: readonly (infer V)[] }
  ? V
  : L['kind'] extends { type: 'int' | 'number' }
    ? number
    : L['kind'] extends { type: 'bool' }
      ? boolean
      : string) &
  unknown

type Nullable<L extends Leaf> = L['default'] extends null ? null : never

/** The validated configuration, one section per table of the definition tree. */
export type Config = {
  -readonly [S in keyof ConfigDefinition]: {
    -readonly [K in keyof ConfigDefinition[S]]: ConfigDefinition[S][K] extends Leaf
      ? LeafValue<ConfigDefinition[S][K]> | Nullable<ConfigDefinition[S][K]>
      : never
  }
}

/** Raised when configuration cannot be used; the message lists every problem at once. */
export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`)
    this.name = 'ConfigError'
  }
}

/** Where the values come from; injected so tests never touch the real environment or disk. */
export interface ConfigSources {
  env: Record<string, string | undefined>
  /** Reads a TOML file's text, or null when it does not exist. */
  readFile: (path: string) => string | null
  /** The default file, used when `ENGRAM_CONFIG` does not name another. */
  defaultFile?: string
}

/**
 * Loads configuration with precedence defaults < TOML file (`config/default.toml` or the file named
 * by `ENGRAM_CONFIG`) < `ENGRAM_*` environment, and validates every leaf.
 */
export function loadConfig(sources: ConfigSources): Config {
  const problems: string[] = []
  const fileName = sources.env.ENGRAM_CONFIG ?? sources.defaultFile ?? 'config/default.toml'
  let file: Record<string, unknown> = {}
  const text = sources.readFile(fileName)
  if (text === null && sources.env.ENGRAM_CONFIG)
    problems.push(`ENGRAM_CONFIG names ${fileName}, which does not exist`)
  if (text !== null) {
    try {
      file = parseToml(text) as Record<string, unknown>
    } catch (e) {
      problems.push(`${fileName}: not valid TOML (${(e as Error).message.split('\n')[0]})`)
    }
  }

  const out: Record<string, Record<string, unknown>> = {}
  for (const [section, leaves] of Object.entries(configDefinition)) {
    const fileSection = file[section]
    if (fileSection !== undefined && (typeof fileSection !== 'object' || fileSection === null)) {
      problems.push(`${fileName}: [${section}] must be a table`)
    }
    const fromFile = (typeof fileSection === 'object' && fileSection !== null ? fileSection : {}) as Record<
      string,
      unknown
    >
    for (const key of Object.keys(fromFile)) {
      if (!(key in leaves)) problems.push(`${fileName}: unknown option ${section}.${key}`)
    }
    const target: Record<string, unknown> = {}
    for (const [key, def] of Object.entries(leaves) as [string, Leaf][]) {
      let value: unknown = def.default
      let origin = 'default'
      if (key in fromFile) {
        value = fromFile[key]
        origin = `${fileName} ${section}.${key}`
      }
      const envValue = def.env ? sources.env[def.env] : undefined
      if (def.env && envValue !== undefined && envValue !== '') {
        value = envValue
        origin = def.env
      }
      const checked = coerce(def, value)
      if (checked.ok) target[key] = checked.value
      else problems.push(`${origin}: ${checked.problem}`)
    }
    out[section] = target
  }
  for (const key of Object.keys(file)) {
    if (!(key in configDefinition)) problems.push(`${fileName}: unknown section [${key}]`)
  }
  if (problems.length === 0) crossCheck(out as Config, problems)
  if (problems.length > 0) throw new ConfigError(problems)
  return out as Config
}

type Coerced = { ok: true; value: unknown } | { ok: false; problem: string }

function coerce(def: Leaf, value: unknown): Coerced {
  if (value === null || value === undefined) return { ok: true, value: null }
  const k = def.kind
  switch (k.type) {
    case 'int':
    case 'number': {
      const n =
        typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : Number.NaN
      if (!Number.isFinite(n) || (k.type === 'int' && !Number.isInteger(n))) {
        return {
          ok: false,
          problem: `expected ${k.type === 'int' ? 'an integer' : 'a number'}, got ${show(def, value)}`,
        }
      }
      if (n < k.min || n > k.max)
        return { ok: false, problem: `must be between ${k.min} and ${k.max}, got ${n}` }
      return { ok: true, value: n }
    }
    case 'bool': {
      if (typeof value === 'boolean') return { ok: true, value }
      const s = String(value).toLowerCase()
      if (['true', '1', 'on', 'yes'].includes(s)) return { ok: true, value: true }
      if (['false', '0', 'off', 'no'].includes(s)) return { ok: true, value: false }
      return { ok: false, problem: `expected true or false, got ${show(def, value)}` }
    }
    case 'enum': {
      const s = String(value)
      if (!k.values.includes(s))
        return { ok: false, problem: `expected one of ${k.values.join(', ')}, got ${show(def, value)}` }
      return { ok: true, value: s }
    }
    case 'string': {
      if (typeof value !== 'string')
        return { ok: false, problem: `expected a string, got ${show(def, value)}` }
      if (k.pattern && !k.pattern.test(value)) {
        return {
          ok: false,
          problem: `expected ${k.patternHint ?? k.pattern.source}, got ${show(def, value)}`,
        }
      }
      return { ok: true, value }
    }
  }
}

/** Never echo a secret back in an error message. */
function show(def: Leaf, value: unknown): string {
  return def.secret ? '(hidden)' : JSON.stringify(value)
}

function crossCheck(c: Config, problems: string[]): void {
  problems.push(...trustedProxyProblems(c.server.trusted_proxies))
  if (c.storage.driver === 's3') {
    for (const k of ['s3_endpoint', 's3_bucket', 's3_access_key', 's3_secret_key'] as const) {
      if (!c.storage[k]) problems.push(`storage.${k} is required when ENGRAM_STORAGE=s3`)
    }
  }
  if (c.engine.shared_index && (!c.data.database_url || c.storage.driver !== 's3')) {
    problems.push(
      "engine.shared_index needs data.database_url and ENGRAM_STORAGE=s3: replicas share their bases' published index through the database and the bucket",
    )
  }
  if (c.billing.mode === 'stripe') {
    for (const k of ['stripe_secret_key', 'stripe_webhook_secret'] as const) {
      if (!c.billing[k]) problems.push(`billing.${k} is required when ENGRAM_BILLING=stripe`)
    }
  }
  const g = c.google
  if (!g.client_id !== !g.client_secret) {
    problems.push('google.client_id and google.client_secret are set together (Google sign-in needs both)')
  }
  if (g.client_id && !issuerAllowed(g.issuer, g.allow_http_issuer)) {
    problems.push(
      `google.issuer ${g.issuer} is plain http off loopback: use https, or set google.allow_http_issuer for an air-gapped lab`,
    )
  }
  if (c.api.frozen_removal_date && Number.isNaN(Date.parse(`${c.api.frozen_removal_date}T00:00:00Z`))) {
    problems.push(`api.frozen_removal_date is not a real date: ${c.api.frozen_removal_date}`)
  }
}

/** The public URL, defaulting to localhost on the configured port. */
export function baseUrl(c: Pick<Config, 'server'>): string {
  return (c.server.base_url ?? `http://localhost:${c.server.port}`).replace(/\/+$/, '')
}

/** Renders `config/default.toml` from the definition tree, every option documented. */
export function renderDefaultToml(): string {
  const lines = [
    '# Engram configuration. Precedence: built-in defaults < this file (or the file named by',
    '# ENGRAM_CONFIG) < ENGRAM_* environment variables. Generated from',
    '# src/platform/config/config.definition.ts by `bun run scripts/config-toml.ts`.',
    '',
  ]
  for (const [section, leaves] of Object.entries(configDefinition)) {
    lines.push(`[${section}]`)
    for (const [key, def] of Object.entries(leaves) as [string, Leaf][]) {
      lines.push(`# ${def.doc}${def.env ? ` Environment: ${def.env}.` : ''}`)
      if (def.default === null) lines.push(`# ${key} = ""`)
      else
        lines.push(
          `${key} = ${typeof def.default === 'string' ? JSON.stringify(def.default) : String(def.default)}`,
        )
    }
    lines.push('')
  }
  return lines.join('\n')
}
