// Customers, products and prices: what a checkout is made of. Each handler validates the whole
// request before it stores anything, so a refused request leaves no trace.
import { type Form, hash, int, list, mergeMetadata, str } from './stripe-form'
import { StripeFail, type StripeStore, stripeId } from './stripe-store'
import type { StripeCustomer, StripeList, StripePrice, StripeProduct, StripeRecurring } from './stripe-types'

/** A list object as Stripe returns it. */
export function listOf<T>(data: T[], url: string): StripeList<T> {
  return { object: 'list', data, has_more: false, url }
}

/** POST /v1/customers */
export function createCustomer(s: StripeStore, f: Form): StripeCustomer {
  const c: StripeCustomer = {
    id: stripeId('cus'),
    object: 'customer',
    created: s.clock,
    email: str(f.email),
    name: str(f.name),
    description: str(f.description),
    metadata: mergeMetadata({}, f.metadata),
    balance: 0,
    currency: null,
    livemode: false,
  }
  s.customers.set(c.id, c)
  return c
}

/** POST /v1/customers/:id: email, name, description, metadata. */
export function updateCustomer(s: StripeStore, f: Form, [id]: string[]): StripeCustomer {
  const c = s.find(s.customers, id!, 'customer')
  for (const k of ['email', 'name', 'description'] as const) if (f[k] !== undefined) c[k] = str(f[k])
  if (f.metadata !== undefined) c.metadata = mergeMetadata(c.metadata, f.metadata)
  return c
}

/** POST /v1/products */
export function createProduct(s: StripeStore, f: Form): StripeProduct {
  const name = str(f.name)
  if (!name) throw new StripeFail(400, 'Missing required param: name.', 'name', 'parameter_missing')
  const p: StripeProduct = {
    id: str(f.id) ?? stripeId('prod'),
    object: 'product',
    active: f.active !== 'false',
    created: s.clock,
    updated: s.clock,
    name,
    description: str(f.description),
    default_price: null,
    metadata: mergeMetadata({}, f.metadata),
    type: 'service',
    livemode: false,
  }
  if (s.products.has(p.id))
    throw new StripeFail(400, `Product already exists.`, 'id', 'resource_already_exists')
  s.products.set(p.id, p)
  return p
}

/** The recurring hash of a price, checked. */
function recurringOf(v: unknown, param: string): StripeRecurring | null {
  if (v === undefined) return null
  const r = hash(v, param)
  const interval = str(r.interval)
  if (!interval || !['day', 'week', 'month', 'year'].includes(interval))
    throw new StripeFail(400, `Invalid ${param}[interval]: must be one of day, week, month, or year`, param)
  return {
    interval: interval as StripeRecurring['interval'],
    interval_count: int(r.interval_count, `${param}[interval_count]`) ?? 1,
    usage_type: 'licensed',
    meter: null,
    trial_period_days: int(r.trial_period_days, `${param}[trial_period_days]`),
  }
}

/**
 * Builds (but does not store) a price from the fields of POST /v1/prices or a line item's
 * price_data; `prefix` names the parameter in errors. product_data makes a product when stored.
 */
export function priceFrom(
  s: StripeStore,
  f: Form,
  prefix = '',
): { price: StripePrice; product?: StripeProduct } {
  const p = (name: string) => (prefix ? `${prefix}[${name}]` : name)
  const currency = str(f.currency)?.toLowerCase()
  if (!currency) throw new StripeFail(400, `Missing required param: ${p('currency')}.`, p('currency'))
  const amount = int(f.unit_amount, p('unit_amount'))
  if (amount === null || amount < 0)
    throw new StripeFail(400, `Missing required param: ${p('unit_amount')}.`, p('unit_amount'))
  let product: StripeProduct | undefined
  let productId = str(f.product)
  if (!productId && f.product_data !== undefined) {
    const data = hash(f.product_data, p('product_data'))
    product = createProductDraft(s, str(data.name), p('product_data'), data.metadata)
    productId = product.id
  }
  if (!productId) throw new StripeFail(400, `Missing required param: ${p('product')}.`, p('product'))
  if (!product && !s.products.has(productId))
    throw new StripeFail(400, `No such product: '${productId}'`, p('product'), 'resource_missing')
  const recurring = recurringOf(f.recurring, p('recurring'))
  const price: StripePrice = {
    id: stripeId('price'),
    object: 'price',
    active: f.active !== 'false',
    created: s.clock,
    currency,
    unit_amount: amount,
    unit_amount_decimal: String(amount),
    product: productId,
    recurring,
    type: recurring ? 'recurring' : 'one_time',
    lookup_key: str(f.lookup_key),
    nickname: str(f.nickname),
    metadata: mergeMetadata({}, f.metadata),
    billing_scheme: 'per_unit',
    tax_behavior: 'unspecified',
    tiers_mode: null,
    transform_quantity: null,
    livemode: false,
  }
  return { price, product }
}

function createProductDraft(s: StripeStore, name: string | null, param: string, metadata: unknown) {
  if (!name) throw new StripeFail(400, `Missing required param: ${param}[name].`, `${param}[name]`)
  const p: StripeProduct = {
    id: stripeId('prod'),
    object: 'product',
    active: true,
    created: s.clock,
    updated: s.clock,
    name,
    description: null,
    default_price: null,
    metadata: mergeMetadata({}, metadata),
    type: 'service',
    livemode: false,
  }
  return p
}

/** POST /v1/prices: a lookup key already in use is refused unless transfer_lookup_key=true. */
export function createPrice(s: StripeStore, f: Form): StripePrice {
  const { price, product } = priceFrom(s, f)
  const holder = [...s.prices.values()].find((x) => price.lookup_key && x.lookup_key === price.lookup_key)
  if (holder && f.transfer_lookup_key !== 'true')
    throw new StripeFail(
      400,
      `A price (\`${holder.id}\`) already uses that lookup key.`,
      'lookup_key',
      'lookup_key_already_exists',
    )
  if (holder) holder.lookup_key = null
  if (product) s.products.set(product.id, product)
  s.prices.set(price.id, price)
  return price
}

/** GET /v1/prices: filters lookup_keys[], active, product, type; newest first as Stripe lists. */
export function listPrices(s: StripeStore, f: Form) {
  const keys = list(f.lookup_keys, 'lookup_keys').map(String)
  const limit = int(f.limit, 'limit') ?? 10
  const data = [...s.prices.values()]
    .filter((p) => keys.length === 0 || (p.lookup_key !== null && keys.includes(p.lookup_key)))
    .filter((p) => f.active === undefined || String(p.active) === f.active)
    .filter((p) => f.product === undefined || p.product === f.product)
    .filter((p) => f.type === undefined || p.type === f.type)
    .reverse()
  return { ...listOf(data.slice(0, limit), '/v1/prices'), has_more: data.length > limit }
}
