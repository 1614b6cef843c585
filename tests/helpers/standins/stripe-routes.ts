// The route table of the stand-in: Stripe's v1 paths and the handler of each.
import { createCustomer, createPrice, createProduct, listPrices, updateCustomer } from './stripe-catalog'
import { createPortalSession, createSession, expireSession } from './stripe-checkout'
import type { Route } from './stripe-http'
import { listInvoices } from './stripe-invoices'
import { createSchedule, releaseSchedule, updateSchedule } from './stripe-schedules'
import { cancelSubscription, listSubscriptions, updateSubscription } from './stripe-subscriptions'

const ID = '([A-Za-z0-9_]+)'
const path = (p: string) => new RegExp(`^${p.replaceAll(':id', ID)}$`)

/** Every route the stand-in answers. */
export const STRIPE_ROUTES: Route[] = [
  ['POST', path('/v1/customers'), createCustomer],
  ['GET', path('/v1/customers/:id'), (s, _f, [id]) => s.find(s.customers, id!, 'customer')],
  ['POST', path('/v1/customers/:id'), updateCustomer],
  ['POST', path('/v1/products'), createProduct],
  ['GET', path('/v1/products/:id'), (s, _f, [id]) => s.find(s.products, id!, 'product')],
  ['POST', path('/v1/prices'), createPrice],
  ['GET', path('/v1/prices'), listPrices],
  ['GET', path('/v1/prices/:id'), (s, _f, [id]) => s.find(s.prices, id!, 'price')],
  ['POST', path('/v1/checkout/sessions'), createSession],
  ['GET', path('/v1/checkout/sessions/:id'), (s, _f, [id]) => s.find(s.sessions, id!, 'checkout.session')],
  ['POST', path('/v1/checkout/sessions/:id/expire'), expireSession],
  ['POST', path('/v1/billing_portal/sessions'), createPortalSession],
  ['GET', path('/v1/subscriptions'), listSubscriptions],
  ['GET', path('/v1/subscriptions/:id'), (s, _f, [id]) => s.find(s.subscriptions, id!, 'subscription')],
  ['POST', path('/v1/subscriptions/:id'), updateSubscription],
  ['DELETE', path('/v1/subscriptions/:id'), cancelSubscription],
  ['POST', path('/v1/subscription_schedules'), createSchedule],
  [
    'GET',
    path('/v1/subscription_schedules/:id'),
    (s, _f, [id]) => s.find(s.schedules, id!, 'subscription_schedule'),
  ],
  ['POST', path('/v1/subscription_schedules/:id'), updateSchedule],
  ['POST', path('/v1/subscription_schedules/:id/release'), releaseSchedule],
  ['GET', path('/v1/invoices'), listInvoices],
  ['GET', path('/v1/invoices/:id'), (s, _f, [id]) => s.find(s.invoices, id!, 'invoice')],
]
