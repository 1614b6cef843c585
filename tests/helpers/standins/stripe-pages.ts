// The pages a customer is sent to: the hosted checkout (its Pay button completes the session as
// completeCheckout does, then redirects to success_url with {CHECKOUT_SESSION_ID} filled in, as
// Stripe does), the billing portal (a link back to return_url) and an invoice. Browser tests can
// walk through them; API tests call completeCheckout instead.
import { completeCheckout } from './stripe-checkout'
import type { StripeStore } from './stripe-store'

const esc = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')

const html = (title: string, body: string, status = 200) =>
  new Response(
    `<!doctype html><meta charset="utf-8"><title>${esc(title)}</title><h1>${esc(title)}</h1>${body}`,
    {
      status,
      headers: { 'content-type': 'text/html; charset=utf-8' },
    },
  )

const money = (cents: number | null, currency: string | null) =>
  `${((cents ?? 0) / 100).toFixed(2)} ${(currency ?? '').toUpperCase()}`

/** Answers a page request, or null when the path is not a page. */
export async function stripePage(s: StripeStore, req: Request, path: string): Promise<Response | null> {
  const m = path.match(/^\/(checkout|portal|invoice)\/([A-Za-z0-9_]+)$/)
  if (!m) return null
  const [, kind, id] = m as unknown as [string, string, string]
  if (kind === 'checkout') {
    const session = s.sessions.get(id)
    if (!session) return html('Checkout not found', '', 404)
    if (req.method === 'POST') {
      if (session.status !== 'open') return html('This checkout is no longer open', '', 409)
      await completeCheckout(s, id)
      const to = (session.success_url ?? s.base).replaceAll('{CHECKOUT_SESSION_ID}', id)
      return new Response(null, { status: 303, headers: { location: to } })
    }
    const cancel = session.cancel_url ? `<p><a href="${esc(session.cancel_url)}">Back</a></p>` : ''
    return html(
      'Stand-in checkout',
      `<p>Subscribe for <strong>${money(session.amount_total, session.currency)}</strong></p>` +
        `<form method="post"><button type="submit">Pay</button></form>${cancel}`,
    )
  }
  if (req.method !== 'GET') return html('Method not allowed', '', 405)
  if (kind === 'portal') {
    const portal = s.portals.get(id)
    if (!portal) return html('Portal session not found', '', 404)
    const back = portal.return_url ? `<p><a href="${esc(portal.return_url)}">Return</a></p>` : ''
    return html('Stand-in billing portal', `<p>Customer ${esc(portal.customer)}</p>${back}`)
  }
  const invoice = s.invoices.get(id)
  if (!invoice) return html('Invoice not found', '', 404)
  return html(
    `Invoice ${invoice.number}`,
    `<p>${money(invoice.total, invoice.currency)}: ${invoice.status}</p>`,
  )
}
