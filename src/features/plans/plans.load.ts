// The operator's plans file (`ENGRAM_PLANS_FILE`): JSON in the shape `GET /plans` answers, read and
// checked once at start-up. Every problem is listed by where it is, so a bad file stops the server
// with a message that says what to fix, instead of a workspace meeting a wrong cap later.
import { CAP_NAMES, type PlanDef } from './plans.schemas'

/** Largest plans file read, in bytes: a list of plans, never a data file. */
export const MAX_PLANS_FILE_BYTES = 256 * 1024

const PLAN_KEYS = ['id', 'name', 'prices', 'caps', 'rate_card', 'public']
const ID = /^[a-z][a-z0-9_-]{0,31}$/

/** A plans file that cannot be used; the message lists every problem. */
export class PlansFileError extends Error {
  /** The exit code of a configuration error (EX_CONFIG), as main.ts reads it. */
  readonly exitCode = 78

  constructor(file: string, problems: string[]) {
    super(`plans file ${file}:\n  - ${problems.join('\n  - ')}`)
    this.name = 'PlansFileError'
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** Checks a number field: present, finite, not negative (and whole when `int`), or null when allowed. */
function amount(
  v: unknown,
  at: string,
  problems: string[],
  opts: { int?: boolean; nullable?: boolean },
): void {
  if (v === null && opts.nullable) return
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    problems.push(`${at}: must be a number${opts.nullable ? ' or null (unlimited)' : ''}`)
  } else if (v < 0) problems.push(`${at}: must not be negative (${v})`)
  else if (opts.int && !Number.isInteger(v)) problems.push(`${at}: must be a whole number (${v})`)
}

/** Checks one plan, adding what is wrong with it to `problems`. */
function checkPlan(p: unknown, at: string, problems: string[]): void {
  if (!isObject(p)) return void problems.push(`${at}: must be an object`)
  for (const k of Object.keys(p)) if (!PLAN_KEYS.includes(k)) problems.push(`${at}: unknown field "${k}"`)
  if (typeof p.id !== 'string' || !ID.test(p.id)) problems.push(`${at}.id: must match ${ID.source}`)
  if (typeof p.name !== 'string' || p.name.length < 1 || p.name.length > 100) {
    problems.push(`${at}.name: must be 1 to 100 characters`)
  }
  if (typeof p.public !== 'boolean') problems.push(`${at}.public: must be true or false`)
  if (!isObject(p.prices)) problems.push(`${at}.prices: must be an object {currency, month, year}`)
  else {
    if (typeof p.prices.currency !== 'string' || !/^[a-z]{3}$/.test(p.prices.currency)) {
      problems.push(`${at}.prices.currency: must be a lower-case ISO 4217 code such as "usd"`)
    }
    for (const k of ['month', 'year']) amount(p.prices[k], `${at}.prices.${k}`, problems, {})
  }
  if (!isObject(p.caps)) problems.push(`${at}.caps: must be an object naming ${CAP_NAMES.join(', ')}`)
  else {
    for (const k of Object.keys(p.caps)) {
      if (!(CAP_NAMES as readonly string[]).includes(k)) {
        problems.push(`${at}.caps: unknown cap "${k}" (known: ${CAP_NAMES.join(', ')})`)
      }
    }
    for (const k of CAP_NAMES) amount(p.caps[k], `${at}.caps.${k}`, problems, { int: true, nullable: true })
  }
  if (p.rate_card !== undefined) {
    if (!isObject(p.rate_card)) problems.push(`${at}.rate_card: must be an object`)
    else {
      for (const k of Object.keys(p.rate_card)) {
        if (k !== 'queries_per_1000' && k !== 'storage_gb_month')
          problems.push(`${at}.rate_card: unknown rate "${k}"`)
        else amount(p.rate_card[k], `${at}.rate_card.${k}`, problems, { nullable: true })
      }
    }
  }
}

/**
 * Parses and checks a plans file's text: `{plans: [...]}` with unique ids, every cap named and none
 * negative, and `defaultPlan` (the plan open sign-up lands on) among them. Throws `PlansFileError`.
 */
export function parsePlans(file: string, text: string, defaultPlan: string): PlanDef[] {
  if (Buffer.byteLength(text) > MAX_PLANS_FILE_BYTES) {
    throw new PlansFileError(file, [`larger than ${MAX_PLANS_FILE_BYTES} bytes`])
  }
  let doc: unknown
  try {
    doc = JSON.parse(text)
  } catch (e) {
    throw new PlansFileError(file, [`not JSON: ${(e as Error).message}`])
  }
  if (!isObject(doc) || !Array.isArray(doc.plans)) {
    throw new PlansFileError(file, ['must be a JSON object {"plans": [...]}, the shape GET /plans answers'])
  }
  const problems: string[] = []
  if (doc.plans.length === 0) problems.push('plans: must name at least one plan')
  for (const [i, p] of doc.plans.entries()) checkPlan(p, `plans[${i}]`, problems)
  const seen = new Set<string>()
  for (const p of doc.plans as { id?: unknown }[]) {
    if (typeof p?.id !== 'string') continue
    if (seen.has(p.id)) problems.push(`plans: duplicate id "${p.id}"`)
    seen.add(p.id)
  }
  if (!seen.has(defaultPlan)) {
    problems.push(`the default plan "${defaultPlan}" (ENGRAM_DEFAULT_PLAN) is not defined in the file`)
  }
  if (problems.length > 0) throw new PlansFileError(file, problems)
  // A plan without a rate card is not metered.
  const unmetered = { queries_per_1000: null, storage_gb_month: null }
  return (doc.plans as (Omit<PlanDef, 'rate_card'> & { rate_card?: Partial<PlanDef['rate_card']> })[]).map(
    (p) => ({ ...p, rate_card: { ...unmetered, ...p.rate_card } }),
  )
}

/** Reads the plans file, bounded; `readFile` answers null for a file that is not there. */
export function loadPlansFile(
  file: string,
  defaultPlan: string,
  read: (path: string, maxBytes: number) => string | null,
): PlanDef[] {
  const text = read(file, MAX_PLANS_FILE_BYTES + 1)
  if (text === null) throw new PlansFileError(file, ['not found or not readable (ENGRAM_PLANS_FILE)'])
  return parsePlans(file, text, defaultPlan)
}
