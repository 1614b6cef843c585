import { type Static, Type } from '@sinclair/typebox'
import { iso } from '../../platform/clock/clock'
import { namedObject } from '../../platform/http/schema'
import { MAX_ENTRIES } from './allowlist.entries'
import type { AllowlistView } from './allowlist.service'

const Entries = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  maxItems: MAX_ENTRIES,
  description: `IPv4 or IPv6 addresses and CIDR ranges (\`203.0.113.7\`, \`10.0.0.0/8\`, \`2001:db8::/32\`), at most ${MAX_ENTRIES}. Saved normalized: host bits cleared, IPv6 compressed, IPv4-mapped IPv6 (\`::ffff:10.0.0.0/104\`) as IPv4, a single address without its /32 or /128, duplicates dropped.`,
  examples: [['203.0.113.0/24', '2001:db8::/32']],
})

export const AllowlistReq = namedObject('IpAllowlistReq', {
  enabled: Type.Boolean({
    description:
      "Refuse requests with the workspace's sessions and API keys from any address not in `cidrs` (403 `ip_not_allowed`). Needs at least one entry.",
  }),
  cidrs: Entries,
  confirm_lockout: Type.Optional(
    Type.Boolean({
      description:
        "Save an enabled list that does not include the caller's own address (otherwise 409 `would_lock_out`): this credential is refused from the next request on.",
    }),
  ),
})

export const AllowlistResp = namedObject('IpAllowlistResp', {
  enabled: Type.Boolean(),
  cidrs: Type.Array(Type.String(), { description: 'The entries as saved (normalized).' }),
  your_address: Type.String({
    description: 'The address this request came from, as the server sees it (behind trusted proxies only).',
  }),
  your_address_listed: Type.Boolean({ description: 'Whether `cidrs` includes `your_address`.' }),
  updated_at: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
    description: 'When the list was last saved; null if never.',
  }),
})

/** The wire form of a workspace's list. */
export function toAllowlistResp(v: AllowlistView): Static<typeof AllowlistResp> {
  return {
    enabled: v.enabled,
    cidrs: v.cidrs,
    your_address: v.yourAddress,
    your_address_listed: v.yourAddressListed,
    updated_at: v.updatedAt ? iso(v.updatedAt) : null,
  }
}
