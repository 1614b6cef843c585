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
    trusted_proxies: leaf({
      doc: 'Reverse proxies whose X-Forwarded-For is believed, comma-separated: addresses, CIDR ranges (10.0.0.0/8), loopback (a proxy on this machine) or private (RFC 1918 and fc00::/7). Only when the socket peer is one of them is the header read, from the right, past every listed proxy; the first other hop is the client (rate limits, audit). Empty trusts nobody: the client is the socket peer. See docs/deployment.md.',
      env: 'ENGRAM_TRUSTED_PROXIES',
      default: '',
      kind: { type: 'string' },
    }),
    trust_proxy: leaf({
      doc: 'Older switch: true trusts the socket peer as a proxy whatever its address, so the last X-Forwarded-For hop is the client (hops further left count only past proxies in trusted_proxies). Prefer trusted_proxies, which also refuses the header from anyone else.',
      env: 'ENGRAM_TRUST_PROXY',
      default: false,
      kind: { type: 'bool' },
    }),
    cors_origins: leaf({
      doc: 'Browser origins allowed to call the API from another site, comma-separated (https://app.example.com); empty keeps CORS closed.',
      env: 'ENGRAM_CORS_ORIGINS',
      default: '',
      kind: {
        type: 'string',
        pattern: /^$|^https?:\/\/[^\s/,]+(,\s*https?:\/\/[^\s/,]+)*$/,
        patternHint: 'comma-separated origins such as https://app.example.com (no path)',
      },
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
    database_url: leaf({
      doc: "A PostgreSQL database to keep the state in instead of the SQLite file in the data dir (postgres://user:password@host:5432/db). The engine's passage index stays in the data dir's SQLite file. `engram migrate` applies its migrations; `engram export-data` moves a data dir's state into it (docs/data-layer.md). Empty (the default): SQLite.",
      env: 'ENGRAM_DATABASE_URL',
      default: null,
      kind: { type: 'string', pattern: /^postgres(ql)?:\/\/[^\s]+$/, patternHint: 'a postgres:// URL' },
      secret: true,
    }),
  },
  security: {
    secret: leaf({
      doc: 'Token-signing secret (at least 32 characters). Generated into the data dir on first start when unset; required with data.database_url, where every process must share it.',
      env: 'ENGRAM_SECRET',
      default: null,
      kind: { type: 'string', pattern: /^.{32,}$/, patternHint: 'at least 32 characters' },
      secret: true,
    }),
    rate_limits: leaf({
      doc: 'Rate limits per client address and per account: on or off (tests may switch them off).',
      env: 'ENGRAM_RATE_LIMITS',
      default: 'on',
      kind: { type: 'enum', values: ['on', 'off'] },
    }),
    password_memory_kib: leaf({
      doc: 'Memory cost of argon2id password hashing in KiB (OWASP minimum 19456; tests use less).',
      env: 'ENGRAM_PASSWORD_MEMORY_KIB',
      default: 65536,
      kind: { type: 'int', min: 1024, max: 1_048_576 },
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
      doc: 'The registration switch of invite mode: first (open until the first workspace exists, then closed), on or off.',
      env: 'ENGRAM_REGISTRATION',
      default: 'first',
      kind: { type: 'enum', values: ['first', 'on', 'off'] },
    }),
    default_plan: leaf({
      doc: 'Plan of a workspace created in open mode.',
      env: 'ENGRAM_DEFAULT_PLAN',
      default: 'free',
      kind: { type: 'string', pattern: /^[a-z][a-z0-9_-]{0,31}$/, patternHint: 'a plan identifier' },
    }),
    session_hours: leaf({
      doc: 'Lifetime of a normal session token, in hours; refresh past half of it for a fresh one.',
      env: 'ENGRAM_SESSION_HOURS',
      default: 12,
      kind: { type: 'int', min: 1, max: 720 },
    }),
    remember_days: leaf({
      doc: 'Lifetime of a remember-me session token, in days.',
      env: 'ENGRAM_REMEMBER_DAYS',
      default: 14,
      kind: { type: 'int', min: 1, max: 365 },
    }),
    session_cap_days: leaf({
      doc: 'Absolute cap of a session from its sign-in, in days; refreshing never goes past it.',
      env: 'ENGRAM_SESSION_CAP_DAYS',
      default: 30,
      kind: { type: 'int', min: 1, max: 365 },
    }),
    verify_link_hours: leaf({
      doc: 'How long an email verification link stays valid after it is sent, in hours.',
      env: 'ENGRAM_VERIFY_LINK_HOURS',
      default: 24,
      kind: { type: 'int', min: 1, max: 720 },
    }),
    reset_link_minutes: leaf({
      doc: 'How long a password reset link stays valid after it is sent, in minutes.',
      env: 'ENGRAM_RESET_LINK_MINUTES',
      default: 60,
      kind: { type: 'int', min: 5, max: 10080 },
    }),
    invite_days: leaf({
      doc: 'How long an invitation link stays valid after it is sent, in days.',
      env: 'ENGRAM_INVITE_DAYS',
      default: 7,
      kind: { type: 'int', min: 1, max: 90 },
    }),
    resend_cooldown_seconds: leaf({
      doc: 'Per-address cooldown between verification or reset emails, in seconds.',
      env: 'ENGRAM_RESEND_COOLDOWN_SECONDS',
      default: 60,
      kind: { type: 'int', min: 0, max: 86400 },
    }),
    register_per_ip_hour: leaf({
      doc: 'Registrations (and access requests) accepted per client IP per hour, in every sign-up mode.',
      env: 'ENGRAM_REGISTER_PER_IP_HOUR',
      default: 10,
      kind: { type: 'int', min: 1, max: 100000 },
    }),
    open_signup_per_ip_day: leaf({
      doc: 'Open-mode sign-ups accepted per client IP per day (on top of the hourly registration limit).',
      env: 'ENGRAM_OPEN_SIGNUP_PER_IP_DAY',
      default: 5,
      kind: { type: 'int', min: 1, max: 100000 },
    }),
    login_per_ip_minute: leaf({
      doc: 'Sign-in, password-change, resend and password-reset requests accepted per client address per minute (an IPv6 client counts by its /64).',
      env: 'ENGRAM_LOGIN_PER_IP_MINUTE',
      default: 20,
      kind: { type: 'int', min: 1, max: 100000 },
    }),
    login_per_account_minute: leaf({
      doc: 'Sign-in attempts accepted per account (the address tried, known or not) per minute, from all client addresses together; resend and password-reset requests per address count separately against the same number. Over it the account waits out the minute: docs/accounts.md says what that costs.',
      env: 'ENGRAM_LOGIN_PER_ACCOUNT_MINUTE',
      default: 10,
      kind: { type: 'int', min: 1, max: 100000 },
    }),
  },
  google: {
    issuer: leaf({
      doc: 'OpenID Connect issuer of "Sign in with Google"; its endpoints are read from discovery. Another provider (a local one in tests or a lab) may stand in: https always, http:// only on a loopback address or with allow_http_issuer.',
      env: 'ENGRAM_GOOGLE_ISSUER',
      default: 'https://accounts.google.com',
      kind: { type: 'string', pattern: /^https?:\/\/[^\s/]+(\/[^\s]*)?$/, patternHint: 'an http(s) URL' },
    }),
    client_id: leaf({
      doc: 'OAuth client id of this server at Google (Google Cloud console, Credentials). Google sign-in is on when both it and client_secret are set; register <base_url>/v1/auth/google/callback as its redirect URI (docs/accounts.md).',
      env: 'ENGRAM_GOOGLE_CLIENT_ID',
      default: null,
      kind: { type: 'string' },
    }),
    client_secret: leaf({
      doc: 'OAuth client secret that goes with client_id.',
      env: 'ENGRAM_GOOGLE_CLIENT_SECRET',
      default: null,
      kind: { type: 'string' },
      secret: true,
    }),
    allow_http_issuer: leaf({
      doc: 'Accept an http:// issuer that is not on a loopback address (an air-gapped lab): tokens and the client secret then cross the network in the clear.',
      env: 'ENGRAM_GOOGLE_ALLOW_HTTP_ISSUER',
      default: false,
      kind: { type: 'bool' },
    }),
  },
  sso: {
    allow_http_issuer: leaf({
      doc: "Accept a workspace's single sign-on issuer on http:// that is not on a loopback address (an air-gapped lab): the codes, tokens and the client secret then cross the network in the clear. Off by default: https, or http:// on loopback only.",
      env: 'ENGRAM_SSO_ALLOW_HTTP_ISSUER',
      default: false,
      kind: { type: 'bool' },
    }),
    start_per_ip_minute: leaf({
      doc: 'Single sign-on starts (POST /auth/sso/start) accepted per client address per minute (an IPv6 client counts by its /64); each one costs a look-up at the provider.',
      env: 'ENGRAM_SSO_START_PER_IP_MINUTE',
      default: 20,
      kind: { type: 'int', min: 1, max: 100000 },
    }),
  },
  email: {
    transport: leaf({
      doc: 'How verification, password-reset and invitation links reach people. log (no mail server): each link is written to the server log as a warn line for the operator to pass on, never answered. An smtp:// or smtps:// URL: mailed. disabled: the link is answered in the response to whoever asked, so anyone who can reach the server can take over any account; only for a machine nobody else can reach.',
      env: 'ENGRAM_EMAIL',
      default: 'log',
      kind: {
        type: 'string',
        pattern: /^(log|disabled|smtps?:\/\/.+)$/,
        patternHint: 'log, disabled or an smtp(s):// URL',
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
    s3_sts_endpoint: leaf({
      doc: 'Where upload credentials are asked for (STS AssumeRole); unset: the S3 endpoint (MinIO and most S3-compatible servers answer there). On AWS: https://sts.<region>.amazonaws.com.',
      env: 'ENGRAM_S3_STS_ENDPOINT',
      default: null,
      kind: { type: 'string', pattern: /^https?:\/\/[^\s]+$/, patternHint: 'an http(s) URL' },
    }),
    s3_role_arn: leaf({
      doc: 'The role upload credentials assume (AWS requires one; MinIO ignores it). See GET /v1/sources/s3/setup.',
      env: 'ENGRAM_S3_ROLE_ARN',
      default: null,
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
      kind: {
        type: 'string',
        pattern: /^https?:\/\/[^\s/]+\/?$/,
        patternHint: 'an http(s) URL without a path',
      },
    }),
    plans_file: leaf({
      doc: 'JSON file of the plans offered, in the shape GET /plans answers ({"plans": [...]}); replaces the built-in free, beta, team, business and enterprise. Checked at start-up: the server refuses to start on a bad one (docs/plans.md).',
      env: 'ENGRAM_PLANS_FILE',
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
    timeout_ms: leaf({
      doc: 'How long to wait for the model server to start answering, and between streamed pieces, in ms.',
      env: 'ENGRAM_LLM_TIMEOUT_MS',
      default: 30000,
      kind: { type: 'int', min: 100, max: 600000 },
    }),
    api_key: leaf({
      doc: 'Bearer key for the model server.',
      env: 'ENGRAM_LLM_API_KEY',
      default: null,
      kind: { type: 'string' },
      secret: true,
    }),
    strict: leaf({
      doc: 'When the model server is down or too slow, answer 503 with Retry-After instead of falling back to the extractive answer (marked `fallback: "extractive"`).',
      env: 'ENGRAM_LLM_STRICT',
      default: false,
      kind: { type: 'bool' },
    }),
  },
  embed: {
    url: leaf({
      doc: 'OpenAI-compatible embeddings server; when set, both strategies re-rank their candidates by meaning.',
      env: 'ENGRAM_EMBED_URL',
      default: null,
      kind: { type: 'string', pattern: /^https?:\/\/.+/, patternHint: 'an http(s) URL' },
    }),
    model: leaf({
      doc: 'Embedding model name sent to the server; passages embedded with another model are embedded again at start-up.',
      env: 'ENGRAM_EMBED_MODEL',
      default: 'default',
      kind: { type: 'string' },
    }),
    api_key: leaf({
      doc: 'Bearer key for the embeddings server.',
      env: 'ENGRAM_EMBED_API_KEY',
      default: null,
      kind: { type: 'string' },
      secret: true,
    }),
    timeout_ms: leaf({
      doc: 'How long to wait for the embeddings server, in ms; a question then answers without re-ranking.',
      env: 'ENGRAM_EMBED_TIMEOUT_MS',
      default: 5000,
      kind: { type: 'int', min: 50, max: 600000 },
    }),
    batch: leaf({
      doc: 'Passages sent in one embeddings request by the embed job that follows onboarding.',
      env: 'ENGRAM_EMBED_BATCH',
      default: 32,
      kind: { type: 'int', min: 1, max: 2048 },
    }),
    weight: leaf({
      doc: "Weight of a candidate passage's similarity to the question (a standard score among the candidates).",
      env: 'ENGRAM_EMBED_WEIGHT',
      default: 3,
      kind: { type: 'number', min: 0, max: 1000 },
    }),
    builtin: leaf({
      doc: 'Without an embeddings server, re-rank by meaning with the built-in static word vectors (in process).',
      env: 'ENGRAM_EMBED_BUILTIN',
      default: true,
      kind: { type: 'bool' },
    }),
    builtin_weight: leaf({
      doc: 'Weight of the similarity by the built-in word vectors (a standard score among the candidates).',
      env: 'ENGRAM_EMBED_BUILTIN_WEIGHT',
      default: 1.5,
      kind: { type: 'number', min: 0, max: 1000 },
    }),
    encoder: leaf({
      doc: 'Without an embeddings server, ask the built-in sentence encoder (Universal Sentence Encoder lite, on a thread of its own) about the questions the word-level support check is unsure of, so more questions the base cannot answer are declined.',
      env: 'ENGRAM_EMBED_ENCODER',
      default: true,
      kind: { type: 'bool' },
    }),
    encoder_idle_seconds: leaf({
      doc: "Seconds without a question for the built-in encoder after which its thread stops and gives its memory (about 20-40 MB) back; the next such question starts it again (about a tenth of a second). After a base's passages are encoded (background work) the thread stops ten seconds after the last of them, unless a question came since.",
      env: 'ENGRAM_EMBED_ENCODER_IDLE_SECONDS',
      default: 300,
      kind: { type: 'int', min: 1, max: 86400 },
    }),
    encoder_wait_ms: leaf({
      doc: "Milliseconds a question the support check is unsure of waits for the built-in encoder (its passages were encoded after onboarding, so only the question is); past them it is decided on its words, and the operator's log says how often.",
      env: 'ENGRAM_EMBED_ENCODER_WAIT_MS',
      default: 250,
      kind: { type: 'int', min: 1, max: 60000 },
    }),
  },
  status: {
    cache_seconds: leaf({
      doc: 'How long GET /status reuses its last measurement, in seconds.',
      env: 'ENGRAM_STATUS_CACHE_SECONDS',
      default: 15,
      kind: { type: 'int', min: 0, max: 3600 },
    }),
    slo_window_days: leaf({
      doc: 'Window over which the published service objectives are measured, in days.',
      env: 'ENGRAM_SLO_WINDOW_DAYS',
      default: 30,
      kind: { type: 'int', min: 1, max: 365 },
    }),
    slo_availability_percent: leaf({
      doc: 'Published availability objective: share of requests answered without a server error, in percent.',
      env: 'ENGRAM_SLO_AVAILABILITY_PERCENT',
      default: 99.9,
      kind: { type: 'number', min: 50, max: 100 },
    }),
    slo_latency_p50_ms: leaf({
      doc: 'Published latency objective for the median API request (chat excluded), in milliseconds.',
      env: 'ENGRAM_SLO_LATENCY_P50_MS',
      default: 50,
      kind: { type: 'int', min: 1, max: 600000 },
    }),
    slo_latency_p99_ms: leaf({
      doc: 'Published latency objective for the 99th-percentile API request (chat excluded), in milliseconds.',
      env: 'ENGRAM_SLO_LATENCY_P99_MS',
      default: 500,
      kind: { type: 'int', min: 1, max: 600000 },
    }),
  },
  engine: {
    warm_cache_mb: leaf({
      doc: "Memory budget of the engine's warm caches together, in MiB: cartridges (three quarters), posting lists (an eighth), passage vectors and rag's decoded passages (a sixteenth each); least recently used entries are evicted beyond it. 0: automatic, a sixteenth of the machine's memory (its RAM, or the container's cgroup limit when smaller), between 32 and 256 MiB.",
      env: 'ENGRAM_WARM_CACHE_MB',
      default: 0,
      kind: { type: 'int', min: 0, max: 1_048_576 },
    }),
    heap_mb: leaf({
      doc: "Memory the JavaScript collector sizes its heap for, in MiB (JavaScriptCore's RAM size: a heap under 80% of it grows by 30% between collections, BUN_JSC_smallHeapGrowthFactor 1.3, then more slowly); the server restarts itself once at start-up with these set (BUN_JSC_forceRAMSize, the growth, and BUN_JSC_minEdenToOldGenerationRatio 0.3 / 1.35 so that a young collection is not each time followed by a full one; each an operator's own winning when already set). 0: automatic, a sixty-fourth of the machine's memory (its RAM, or the container's cgroup limit when smaller), between 256 and 1,024 MiB; the collector otherwise sizes from all of the machine's RAM and garbage waits.",
      env: 'ENGRAM_HEAP_MB',
      default: 0,
      kind: { type: 'int', min: 0, max: 1_048_576 },
    }),
    shared_index: leaf({
      doc: "One passage index for every replica (docs/scale-out.md): each write to a base's index is published as a file in the object store, named by a row of the shared database, and each question first brings the replica's copy of the base to the published generation. On for every replica when several serve one database (with ENGRAM_STORAGE=s3); off (the default), each process keeps its index in its data dir only.",
      env: 'ENGRAM_SHARED_INDEX',
      default: false,
      kind: { type: 'bool' },
    }),
    compile_threads: leaf({
      doc: 'Threads that compile cartridges during onboarding, beside the event loop; 0 compiles them in process.',
      env: 'ENGRAM_COMPILE_THREADS',
      default: 1,
      kind: { type: 'int', min: 0, max: 64 },
    }),
    max_concurrent: leaf({
      doc: 'Questions answered at once; more wait in a bounded queue.',
      env: 'ENGRAM_MAX_CONCURRENT_QUERIES',
      default: 16,
      kind: { type: 'int', min: 1, max: 4096 },
    }),
    max_queued: leaf({
      doc: 'Questions allowed to wait for a slot; beyond it the answer is 503 with Retry-After.',
      env: 'ENGRAM_MAX_QUEUED_QUERIES',
      default: 256,
      kind: { type: 'int', min: 0, max: 100000 },
    }),
  },
  jobs: {
    run: leaf({
      doc: 'Whether `engram serve` runs background jobs and delivers events (the scheduler and the outbox dispatcher). Off for a replica that only answers requests while other replicas on the same database run them; some replica must.',
      env: 'ENGRAM_JOBS',
      default: true,
      kind: { type: 'bool' },
    }),
    workers: leaf({
      doc: 'Background job worker slots (onboarding, extraction, syncs) in this process.',
      env: 'ENGRAM_JOB_WORKERS',
      default: 3,
      kind: { type: 'int', min: 1, max: 64 },
    }),
    workspace_slots: leaf({
      doc: "Most worker slots one workspace's jobs may hold at once, so that one workspace never holds them all; free slots go to the workspace running the fewest jobs first. 0: all slots but one (jobs.workers - 1, at least 1).",
      env: 'ENGRAM_JOB_WORKSPACE_SLOTS',
      default: 0,
      kind: { type: 'int', min: 0, max: 64 },
    }),
    interactive_slots: leaf({
      doc: 'Worker slots kept for short jobs someone waits for (extraction of uploads, onboarding): syncs and imports, which can run for hours, never take them. At most jobs.workers - 1 are kept.',
      env: 'ENGRAM_JOB_INTERACTIVE_SLOTS',
      default: 1,
      kind: { type: 'int', min: 0, max: 63 },
    }),
    lease_seconds: leaf({
      doc: 'How long a claimed job is owned without a heartbeat before another worker may take it over.',
      env: 'ENGRAM_JOB_LEASE_SECONDS',
      default: 60,
      kind: { type: 'int', min: 5, max: 3600 },
    }),
    poll_ms: leaf({
      doc: 'How often the scheduler looks for due jobs, in milliseconds.',
      env: 'ENGRAM_JOB_POLL_MS',
      default: 250,
      kind: { type: 'int', min: 10, max: 60000 },
    }),
  },
  ingest: {
    max_file_bytes: leaf({
      doc: 'Largest file accepted by an upload, a raw push upload or a commit, in bytes.',
      env: 'ENGRAM_INGEST_MAX_FILE_BYTES',
      default: 536_870_912,
      kind: { type: 'int', min: 1024, max: 8_589_934_592 },
    }),
    max_request_bytes: leaf({
      doc: 'Largest multipart upload request (all its files together), in bytes.',
      env: 'ENGRAM_INGEST_MAX_REQUEST_BYTES',
      default: 2_147_483_648,
      kind: { type: 'int', min: 1024, max: 8_589_934_592 },
    }),
    max_files_per_request: leaf({
      doc: 'Most files in one multipart upload request.',
      env: 'ENGRAM_INGEST_MAX_FILES_PER_REQUEST',
      default: 1000,
      kind: { type: 'int', min: 1, max: 100_000 },
    }),
    max_json_bytes: leaf({
      doc: 'Largest JSON body of the push protocol (manifests of diff, upload-urls and commit; upsert), in bytes; a larger one is refused with 413 before it is read whole. Reading and parsing a body holds the server for a few ms per MB: larger files go through upload-urls and raw.',
      env: 'ENGRAM_INGEST_MAX_JSON_BYTES',
      default: 16_777_216,
      kind: { type: 'int', min: 1024, max: 1_073_741_824 },
    }),
    max_manifest_files: leaf({
      doc: 'Most files one manifest (diff, upload-urls, commit) may list; more is a 422 too_many_files. The work and memory of a manifest grow with it (about 2 KB a file while upload-urls works through it); a larger folder is pushed as sub-folders (engram push --prefix).',
      env: 'ENGRAM_INGEST_MAX_MANIFEST_FILES',
      default: 50_000,
      kind: { type: 'int', min: 100, max: 1_000_000 },
    }),
    max_extract_bytes: leaf({
      doc: 'Largest document whose text is extracted (it is read whole into memory); larger ones are kept but fail with a clear error.',
      env: 'ENGRAM_INGEST_MAX_EXTRACT_BYTES',
      default: 268_435_456,
      kind: { type: 'int', min: 1024, max: 4_294_967_296 },
    }),
    extract_memory_mb: leaf({
      doc: 'Memory the text extraction of one document may use, in MB (the reading child process whole, about 60 MB of it the runtime): the child is stopped past this and the file fails with a clear error (zip bombs, huge PDF streams) while the server stays within its own memory.',
      env: 'ENGRAM_EXTRACT_MEMORY_MB',
      default: 512,
      kind: { type: 'int', min: 128, max: 65_536 },
    }),
    extract_timeout_seconds: leaf({
      doc: 'Longest the text extraction of one document may take, in seconds; its child process is then stopped and the file fails with a clear error.',
      env: 'ENGRAM_EXTRACT_TIMEOUT_SECONDS',
      default: 600,
      kind: { type: 'int', min: 5, max: 86_400 },
    }),
    upload_url_seconds: leaf({
      doc: 'Validity of a presigned upload URL of the push protocol, in seconds.',
      env: 'ENGRAM_INGEST_UPLOAD_URL_SECONDS',
      default: 3600,
      kind: { type: 'int', min: 60, max: 604_800 },
    }),
    staging_hours: leaf({
      doc: 'How long pushed content waits for its commit before the sweep removes it, in hours.',
      env: 'ENGRAM_INGEST_STAGING_HOURS',
      default: 24,
      kind: { type: 'int', min: 1, max: 720 },
    }),
    orphan_grace_seconds: leaf({
      doc: "The start-up orphan sweep spares objects written less than this long ago, which may be another replica's upload whose row is not committed yet, in seconds; 0 spares none for its age (one process only).",
      env: 'ENGRAM_INGEST_ORPHAN_GRACE_SECONDS',
      default: 3600,
      kind: { type: 'int', min: 0, max: 604_800 },
    }),
  },
  onboarding: {
    auto_delay_ms: leaf({
      doc: "Automatic onboarding (auto_onboard): quiet time after an upload, push or sync has been extracted before its documents' run starts, in milliseconds; each later arrival puts the run off again, so a folder uploaded file by file ends up in one run.",
      env: 'ENGRAM_ONBOARDING_AUTO_DELAY_MS',
      default: 2000,
      kind: { type: 'int', min: 0, max: 3_600_000 },
    }),
    auto_max_wait_ms: leaf({
      doc: 'Automatic onboarding: longest arrivals that keep coming may put a run off, in milliseconds from the first of them; past it the run starts with what is extracted (never sooner than auto_delay_ms after the first).',
      env: 'ENGRAM_ONBOARDING_AUTO_MAX_WAIT_MS',
      default: 60_000,
      kind: { type: 'int', min: 0, max: 86_400_000 },
    }),
  },
  sources: {
    folder_roots: leaf({
      doc: 'Server directories `folder` sources may read, each granted to workspaces, comma-separated: `ws_<id>=/srv/a` grants /srv/a to that workspace alone; `*=/srv/engram/{workspace_id}` gives every workspace the directory named by its own id (created by the operator; one that does not exist admits nothing). Empty (the default): no workspace reads any server folder. A source folder must be a granted directory or inside one, after symlinks and `..` are resolved. A bare path, which once granted every workspace, is refused at start-up.',
      env: 'ENGRAM_SOURCES_FOLDER_ROOTS',
      default: '',
      kind: {
        type: 'string',
        // A grant is a workspace id or `*`; `*` needs the {workspace_id} placeholder, so that no
        // directory is ever shared by every workspace.
        pattern:
          /^$|^\s*(ws_[A-Za-z0-9]+=\/[^,]*|\*=\/[^,]*\{workspace_id\}[^,]*)(\s*,\s*(ws_[A-Za-z0-9]+=\/[^,]*|\*=\/[^,]*\{workspace_id\}[^,]*))*\s*$/,
        patternHint:
          'comma-separated grants, each ws_<workspace id>=/absolute/path or *=/absolute/path/{workspace_id}. A bare path no longer grants every workspace: write ws_<id>=/srv/docs to grant /srv/docs to one workspace, or *=/srv/docs/{workspace_id} to give each workspace a folder of its own',
      },
    }),
    deny_private_networks: leaf({
      doc: "Refuse sources on private, unique-local and carrier-grade NAT addresses, and on loopback and this server's own addresses whatever allow_loopback says. Off by default: on-premises object stores live on private networks. (Link-local and cloud metadata addresses are always refused.)",
      env: 'ENGRAM_SOURCES_DENY_PRIVATE_NETWORKS',
      default: false,
      kind: { type: 'bool' },
    }),
    gdrive_api_url: leaf({
      doc: 'Base URL of the Google Drive v3 API (a stand-in in tests).',
      env: 'ENGRAM_SOURCES_GDRIVE_API_URL',
      default: 'https://www.googleapis.com',
      kind: { type: 'string', pattern: /^https?:\/\/[^\s]+$/, patternHint: 'an http(s) URL' },
    }),
    allow_loopback: leaf({
      doc: "Let sources reach loopback and this server's own addresses (its interfaces): an S3 endpoint a workspace gives, and the addresses and redirects of Drive, Graph and the login services below. Off by default: a tenant's endpoint could otherwise reach the services of this machine (admin ports, databases, the model server) and map its ports. Turn on only for an evaluation on one machine or tests with stand-ins on loopback; deny_private_networks still refuses them.",
      env: 'ENGRAM_SOURCES_ALLOW_LOOPBACK',
      default: false,
      kind: { type: 'bool' },
    }),
    google_token_url: leaf({
      doc: "Google's OAuth 2.0 token endpoint (service-account and refresh-token grants).",
      env: 'ENGRAM_SOURCES_GOOGLE_TOKEN_URL',
      default: 'https://oauth2.googleapis.com/token',
      kind: { type: 'string', pattern: /^https?:\/\/[^\s]+$/, patternHint: 'an http(s) URL' },
    }),
    graph_api_url: leaf({
      doc: 'Base URL of Microsoft Graph, with its version (a stand-in in tests).',
      env: 'ENGRAM_SOURCES_GRAPH_API_URL',
      default: 'https://graph.microsoft.com/v1.0',
      kind: { type: 'string', pattern: /^https?:\/\/[^\s]+$/, patternHint: 'an http(s) URL' },
    }),
    microsoft_login_url: leaf({
      doc: 'Microsoft identity platform authority host (client-credentials tokens for SharePoint).',
      env: 'ENGRAM_SOURCES_MICROSOFT_LOGIN_URL',
      default: 'https://login.microsoftonline.com',
      kind: { type: 'string', pattern: /^https?:\/\/[^\s]+$/, patternHint: 'an http(s) URL' },
    }),
    batch_files: leaf({
      doc: 'Files a sync registers per transaction: what a crash can make it fetch again.',
      env: 'ENGRAM_SOURCES_BATCH_FILES',
      default: 100,
      kind: { type: 'int', min: 1, max: 10_000 },
    }),
    fetch_concurrency: leaf({
      doc: 'Files a sync downloads at once from one source.',
      env: 'ENGRAM_SOURCES_FETCH_CONCURRENCY',
      default: 8,
      kind: { type: 'int', min: 1, max: 64 },
    }),
    request_timeout_seconds: leaf({
      doc: 'Longest one request to a source may take before it counts as unreachable, in seconds.',
      env: 'ENGRAM_SOURCES_REQUEST_TIMEOUT_SECONDS',
      default: 30,
      kind: { type: 'int', min: 1, max: 3600 },
    }),
    max_run_minutes: leaf({
      doc: 'Longest a sync or import run may take, in minutes, counted from its start (waits for a busy source included); past it the run ends failed, keeping what it took, and the next sync goes on from there.',
      env: 'ENGRAM_SOURCES_MAX_RUN_MINUTES',
      default: 360,
      kind: { type: 'int', min: 1, max: 10_080 },
    }),
    min_interval_minutes: leaf({
      doc: 'Shortest schedule interval a source may ask for, in minutes.',
      env: 'ENGRAM_SOURCES_MIN_INTERVAL_MINUTES',
      default: 5,
      kind: { type: 'int', min: 1, max: 10_080 },
    }),
  },
  webhooks: {
    allow_http: leaf({
      doc: 'Let workspaces subscribe plain-http webhook endpoints. Off by default: a delivery carries its payload and signature in the clear over http. Turn on only for a lab or tests.',
      env: 'ENGRAM_WEBHOOKS_ALLOW_HTTP',
      default: false,
      kind: { type: 'bool' },
    }),
    allow_private_networks: leaf({
      doc: 'Let webhook endpoints be on private, unique-local and carrier-grade NAT addresses (a receiver inside the company network). Off by default: a workspace could otherwise make this server post to services behind its edge. Link-local and cloud metadata addresses are always refused.',
      env: 'ENGRAM_WEBHOOKS_ALLOW_PRIVATE_NETWORKS',
      default: false,
      kind: { type: 'bool' },
    }),
    allow_loopback: leaf({
      doc: "Let webhook endpoints be on loopback and this server's own addresses. Off by default (the services of this machine); turn on only for an evaluation on one machine or tests with a receiver on loopback.",
      env: 'ENGRAM_WEBHOOKS_ALLOW_LOOPBACK',
      default: false,
      kind: { type: 'bool' },
    }),
    timeout_ms: leaf({
      doc: 'Longest one delivery attempt may take (connecting, sending, the status line), in milliseconds; past it the attempt counts as failed and is retried.',
      env: 'ENGRAM_WEBHOOKS_TIMEOUT_MS',
      default: 10_000,
      kind: { type: 'int', min: 100, max: 60_000 },
    }),
    disable_after_failures: leaf({
      doc: 'An endpoint is disabled after this many failed attempts in a row (any success resets the count), once the first of them is at least disable_after_hours old. A disabled endpoint gets nothing until an admin enables it again.',
      env: 'ENGRAM_WEBHOOKS_DISABLE_AFTER_FAILURES',
      default: 5,
      kind: { type: 'int', min: 1, max: 10_000 },
    }),
    disable_after_hours: leaf({
      doc: 'How long an endpoint must have been failing (since the first failed attempt of its run of failures) before it is disabled; 0 disables on the count alone.',
      env: 'ENGRAM_WEBHOOKS_DISABLE_AFTER_HOURS',
      default: 24,
      kind: { type: 'int', min: 0, max: 720 },
    }),
  },
  kms: {
    allow_http: leaf({
      doc: 'Let workspaces point their customer-managed key (provider aws-kms) at a plain-http KMS endpoint. Off by default: data keys would cross the network in the clear. Turn on only for a lab or tests.',
      env: 'ENGRAM_KMS_ALLOW_HTTP',
      default: false,
      kind: { type: 'bool' },
    }),
    allow_private_networks: leaf({
      doc: 'Let a KMS endpoint be on a private, unique-local or carrier-grade NAT address (an on-prem KMS inside the company network). Off by default. Link-local and cloud metadata addresses are always refused.',
      env: 'ENGRAM_KMS_ALLOW_PRIVATE_NETWORKS',
      default: false,
      kind: { type: 'bool' },
    }),
    allow_loopback: leaf({
      doc: "Let a KMS endpoint be on loopback or this server's own addresses (a KMS on the same machine, or tests). Off by default.",
      env: 'ENGRAM_KMS_ALLOW_LOOPBACK',
      default: false,
      kind: { type: 'bool' },
    }),
    aws_region: leaf({
      doc: 'Region of the KMS when a workspace names none.',
      env: 'ENGRAM_KMS_AWS_REGION',
      default: 'us-east-1',
      kind: { type: 'string' },
    }),
    aws_access_key_id: leaf({
      doc: "Access key the server signs KMS requests with. Unset: the AWS SDK's default chain (AWS_* environment, shared files, the instance or task role).",
      env: 'ENGRAM_KMS_AWS_ACCESS_KEY_ID',
      default: null,
      kind: { type: 'string' },
      secret: true,
    }),
    aws_secret_access_key: leaf({
      doc: 'Secret of aws_access_key_id.',
      env: 'ENGRAM_KMS_AWS_SECRET_ACCESS_KEY',
      default: null,
      kind: { type: 'string' },
      secret: true,
    }),
    timeout_ms: leaf({
      doc: 'Longest one KMS request may take, in milliseconds; past it the read or write it serves fails with encryption_key_unavailable.',
      env: 'ENGRAM_KMS_TIMEOUT_MS',
      default: 5_000,
      kind: { type: 'int', min: 100, max: 60_000 },
    }),
    data_key_cache_seconds: leaf({
      doc: 'How long an unwrapped data key is kept in memory for further reads of its object (bounded to 10,000 keys; dropped at once when the key is disabled). 0 asks the KMS on every read. A key disabled inside the KMS itself is noticed at the latest this long after.',
      env: 'ENGRAM_KMS_DATA_KEY_CACHE_SECONDS',
      default: 300,
      kind: { type: 'int', min: 0, max: 86_400 },
    }),
  },
  rates: {
    cpu_second_usd: leaf({
      doc: 'Rate card: price of one CPU-second of query or onboarding work, in USD (about $0.0425 a vCPU-hour).',
      env: 'ENGRAM_RATE_CPU_SECOND_USD',
      default: 0.0000118,
      kind: { type: 'number', min: 0, max: 1 },
    }),
    memory_gb_month_usd: leaf({
      doc: 'Rate card: price of one GB (2^30 bytes) of memory held for a month, in USD; charged for warm cartridges.',
      env: 'ENGRAM_RATE_MEMORY_GB_MONTH_USD',
      default: 3.65,
      kind: { type: 'number', min: 0, max: 10000 },
    }),
    gpu_hour_usd: leaf({
      doc: 'Rate card: price of one GPU-hour of the model server, in USD (used only when a model server is set).',
      env: 'ENGRAM_RATE_GPU_HOUR_USD',
      default: 1.5,
      kind: { type: 'number', min: 0, max: 10000 },
    }),
    prefill_tokens_per_second: leaf({
      doc: 'Rate card: context (prompt) tokens the model server reads per GPU-second.',
      env: 'ENGRAM_RATE_PREFILL_TOKENS_PER_SECOND',
      default: 5000,
      kind: { type: 'number', min: 1, max: 10_000_000 },
    }),
    decode_tokens_per_second: leaf({
      doc: 'Rate card: answer tokens the model server writes per GPU-second (all concurrent requests together).',
      env: 'ENGRAM_RATE_DECODE_TOKENS_PER_SECOND',
      default: 500,
      kind: { type: 'number', min: 1, max: 10_000_000 },
    }),
    utilisation: leaf({
      doc: 'Rate card: share (0..1] of paid GPU time that does useful work; idle time is charged to the queries.',
      env: 'ENGRAM_RATE_UTILISATION',
      default: 0.5,
      kind: { type: 'number', min: 0.01, max: 1 },
    }),
  },
  scale_test: {
    max_seconds: leaf({
      doc: 'Longest a scale test may run, in seconds; the levels share this budget and the test stops at it.',
      env: 'ENGRAM_SCALE_TEST_MAX_SECONDS',
      default: 60,
      kind: { type: 'int', min: 1, max: 3600 },
    }),
    max_requests_per_level: leaf({
      doc: 'Most queries a scale test sends to each strategy at one concurrency level.',
      env: 'ENGRAM_SCALE_TEST_MAX_REQUESTS_PER_LEVEL',
      default: 200,
      kind: { type: 'int', min: 1, max: 100_000 },
    }),
    max_per_hour: leaf({
      doc: 'Scale tests one workspace may start per hour (each sends up to max_requests_per_level queries per strategy and level to this server); beyond it 429 rate_limited with Retry-After. One runs at a time per workspace whatever this says.',
      env: 'ENGRAM_SCALE_TEST_MAX_PER_HOUR',
      default: 6,
      kind: { type: 'int', min: 1, max: 10_000 },
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
    idempotency_claim_seconds: leaf({
      doc: "How long the claim of a request sent with an Idempotency-Key holds its key while the request runs, in seconds. A request in flight renews its claim every quarter of this; past it unrenewed (its process died or stalled) the next request with the key takes the claim over and runs. Shorter frees a dead process's keys sooner; longer tolerates longer stalls (a paused process, a slow database) without a retry running the request a second time.",
      env: 'ENGRAM_IDEMPOTENCY_CLAIM_SECONDS',
      default: 60,
      kind: { type: 'int', min: 4, max: 3600 },
    }),
  },
  legal: {
    dir: leaf({
      doc: "Folder of the operator's legal documents (terms.md, privacy.md, dpa.md, each opening with a version and title block; docs/legal.md). A document without a file there is the shipped template.",
      env: 'ENGRAM_LEGAL_DIR',
      default: null,
      kind: { type: 'string' },
    }),
  },
} as const satisfies Record<string, Record<string, Leaf>>

export type ConfigDefinition = typeof configDefinition
