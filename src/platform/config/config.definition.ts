/**
 * The one definition tree of Engram's configuration. Each leaf carries its documentation, default,
 * environment name and accepted values; the loader, the validator and `config/default.toml` all
 * come from here, so an option cannot be documented in one place and read differently in another.
 */

/** The kinds of value a leaf may hold. */
export type LeafKind =
  | { type: 'string'; pattern?: RegExp; patternHint?: string }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'int'; min: number; max: number }
  | { type: 'number'; min: number; max: number }
  | { type: 'bool' }

/** One configurable option. `default: null` means "unset". */
export interface Leaf {
  doc: string
  env: string | null
  default: string | number | boolean | null
  kind: LeafKind
  secret?: boolean
}

const leaf = <const L extends Leaf>(l: L): L => l

/** Section name -> option name -> leaf. TOML tables and `ENGRAM_*` names derive from this. */
export const configDefinition = {
  server: {
    host: leaf({ doc: 'Listen address.', env: 'ENGRAM_HOST', default: '0.0.0.0', kind: { type: 'string' } }),
    port: leaf({
      doc: 'Listen port.',
      env: 'ENGRAM_PORT',
      default: 8080,
      kind: { type: 'int', min: 0, max: 65535 },
    }),
    base_url: leaf({
      doc: 'Public URL used in emailed links and redirects; defaults to http://localhost:<port>.',
      env: 'ENGRAM_BASE_URL',
      default: null,
      kind: { type: 'string', pattern: /^https?:\/\/[^\s/]+(\/[^\s]*)?$/, patternHint: 'an http(s) URL' },
    }),
    max_body_bytes: leaf({
      doc: 'Largest JSON or form request body accepted, in bytes (uploads have their own limits).',
      env: 'ENGRAM_MAX_BODY_BYTES',
      default: 1_048_576,
      kind: { type: 'int', min: 1024, max: 1_073_741_824 },
    }),
    trust_proxy: leaf({
      doc: 'Take the client address from X-Forwarded-For (only behind a reverse proxy you control).',
      env: 'ENGRAM_TRUST_PROXY',
      default: false,
      kind: { type: 'bool' },
    }),
    log_level: leaf({
      doc: 'Least severe log level written: debug, info, warn, error or silent.',
      env: 'ENGRAM_LOG_LEVEL',
      default: 'info',
      kind: { type: 'enum', values: ['debug', 'info', 'warn', 'error', 'silent'] },
    }),
  },
  data: {
    dir: leaf({
      doc: 'Directory holding the SQLite database, local objects and the generated secret.',
      env: 'ENGRAM_DATA_DIR',
      default: './data',
      kind: { type: 'string' },
    }),
  },
  security: {
    secret: leaf({
      doc: 'Token-signing secret (at least 32 characters). Generated into the data dir on first start when unset.',
      env: 'ENGRAM_SECRET',
      default: null,
      kind: { type: 'string', pattern: /^.{32,}$/, patternHint: 'at least 32 characters' },
      secret: true,
    }),
    rate_limits: leaf({
      doc: 'Per-IP rate limits: on or off (tests may switch them off).',
      env: 'ENGRAM_RATE_LIMITS',
      default: 'on',
      kind: { type: 'enum', values: ['on', 'off'] },
    }),
  },
  accounts: {
    signup_mode: leaf({
      doc: 'Sign-up mode: invite (registration switch, beta plan) or open (verified by email).',
      env: 'ENGRAM_SIGNUP_MODE',
      default: 'invite',
      kind: { type: 'enum', values: ['invite', 'open'] },
    }),
    registration: leaf({
      doc: 'The registration switch of invite mode: on or off.',
      env: 'ENGRAM_REGISTRATION',
      default: 'on',
      kind: { type: 'enum', values: ['on', 'off'] },
    }),
    default_plan: leaf({
      doc: 'Plan of a workspace created in open mode.',
      env: 'ENGRAM_DEFAULT_PLAN',
      default: 'free',
      kind: { type: 'string', pattern: /^[a-z][a-z0-9_-]{0,31}$/, patternHint: 'a plan identifier' },
    }),
  },
  email: {
    transport: leaf({
      doc: 'disabled (links are returned in responses) or an smtp:// or smtps:// URL.',
      env: 'ENGRAM_EMAIL',
      default: 'disabled',
      kind: {
        type: 'string',
        pattern: /^(disabled|smtps?:\/\/.+)$/,
        patternHint: 'disabled or an smtp(s):// URL',
      },
      secret: true,
    }),
    from: leaf({
      doc: 'Sender address of outgoing mail.',
      env: 'ENGRAM_EMAIL_FROM',
      default: 'Engram <no-reply@engram.local>',
      kind: { type: 'string' },
    }),
  },
  storage: {
    driver: leaf({
      doc: 'Object store: local (files under the data dir) or s3 (any S3-compatible server).',
      env: 'ENGRAM_STORAGE',
      default: 'local',
      kind: { type: 'enum', values: ['local', 's3'] },
    }),
    s3_endpoint: leaf({
      doc: 'S3 endpoint URL.',
      env: 'ENGRAM_S3_ENDPOINT',
      default: null,
      kind: { type: 'string' },
    }),
    s3_bucket: leaf({
      doc: 'S3 bucket name.',
      env: 'ENGRAM_S3_BUCKET',
      default: null,
      kind: { type: 'string' },
    }),
    s3_access_key: leaf({
      doc: 'S3 access key.',
      env: 'ENGRAM_S3_ACCESS_KEY',
      default: null,
      kind: { type: 'string' },
      secret: true,
    }),
    s3_secret_key: leaf({
      doc: 'S3 secret key.',
      env: 'ENGRAM_S3_SECRET_KEY',
      default: null,
      kind: { type: 'string' },
      secret: true,
    }),
    s3_region: leaf({
      doc: 'S3 region.',
      env: 'ENGRAM_S3_REGION',
      default: 'us-east-1',
      kind: { type: 'string' },
    }),
  },
  billing: {
    mode: leaf({
      doc: 'Billing: off or stripe.',
      env: 'ENGRAM_BILLING',
      default: 'off',
      kind: { type: 'enum', values: ['off', 'stripe'] },
    }),
    stripe_secret_key: leaf({
      doc: 'Stripe secret key.',
      env: 'ENGRAM_STRIPE_SECRET_KEY',
      default: null,
      kind: { type: 'string' },
      secret: true,
    }),
    stripe_webhook_secret: leaf({
      doc: 'Stripe webhook signing secret.',
      env: 'ENGRAM_STRIPE_WEBHOOK_SECRET',
      default: null,
      kind: { type: 'string' },
      secret: true,
    }),
    stripe_api_base: leaf({
      doc: 'Stripe API base URL (a local stand-in in tests).',
      env: 'ENGRAM_STRIPE_API_BASE',
      default: null,
      kind: { type: 'string' },
    }),
  },
  llm: {
    url: leaf({
      doc: 'OpenAI-compatible chat-completions server; unset means the embedded extractive engine.',
      env: 'ENGRAM_LLM_URL',
      default: null,
      kind: { type: 'string', pattern: /^https?:\/\/.+/, patternHint: 'an http(s) URL' },
    }),
    model: leaf({
      doc: 'Model name sent to the server.',
      env: 'ENGRAM_LLM_MODEL',
      default: null,
      kind: { type: 'string' },
    }),
    api_key: leaf({
      doc: 'Bearer key for the model server.',
      env: 'ENGRAM_LLM_API_KEY',
      default: null,
      kind: { type: 'string' },
      secret: true,
    }),
  },
  api: {
    frozen_removal_date: leaf({
      doc: 'Removal date (YYYY-MM-DD) scheduled for the unversioned routes; sets their Deprecation header.',
      env: 'ENGRAM_FROZEN_REMOVAL_DATE',
      default: null,
      kind: { type: 'string', pattern: /^\d{4}-\d{2}-\d{2}$/, patternHint: 'a date YYYY-MM-DD' },
    }),
    idempotency_ttl_hours: leaf({
      doc: 'How long Idempotency-Key records are kept, in hours.',
      env: 'ENGRAM_IDEMPOTENCY_TTL_HOURS',
      default: 24,
      kind: { type: 'int', min: 1, max: 720 },
    }),
  },
} as const satisfies Record<string, Record<string, Leaf>>

export type ConfigDefinition = typeof configDefinition
