import {
  type AccessCheck,
  type Actor,
  actorOf,
  type Caller,
  type Principal,
} from '../../platform/auth/principal'
import type { Clock } from '../../platform/clock/clock'
import { holdInUnit } from '../../platform/db/hold'
import type { Store } from '../../platform/db/store'
import { RevisionMemo } from '../../platform/db/store-memo'
import { fail, validationFailed } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import type { Logger } from '../../platform/log/log'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { AddressMatcher, normalizeEntries } from './allowlist.entries'
import { RefusalLog } from './allowlist.refusals'
import { AllowlistRepo, type AllowlistRow } from './allowlist.repo'

/** A workspace's list as its admin sees it, with the caller's address as the server worked it out. */
export interface AllowlistView {
  enabled: boolean
  cidrs: string[]
  yourAddress: string
  /** Whether `cidrs` includes `yourAddress`, enabled or not. */
  yourAddressListed: boolean
  /** Null when the list was never saved. */
  updatedAt: Date | null
}

/** A list to save, as an admin sent it. */
export interface AllowlistChange {
  enabled: boolean
  cidrs: readonly string[]
  /** Save an enabled list that leaves out the caller's own address. */
  confirmLockout?: boolean
}

/** What the request check keeps of a workspace: its matcher, or null when its list is not enforced. */
interface Policy {
  matcher: AddressMatcher | null
}

const OPEN: Policy = { matcher: null }
/** Distinct saved lists whose matchers are kept; beyond it they are rebuilt as asked. */
const MAX_MATCHERS = 1_000

export interface AllowlistDeps {
  /** Settings are units on it; the request check reads it through a memo. */
  store: Store
  clock: Clock
  log: Logger
  /** Changes and refusals are told as `ip_allowlist.updated` / `.refused` (the audit log subscribes). */
  events: Outbox
  /** Every change of a list moves its workspace's security revision on, in the change's unit. */
  workspaces: Pick<WorkspacesService, 'bumpSecurityRev'>
}

/**
 * The workspace IP allowlist: its settings (`/v1/enterprise/ip-allowlist`) and `admit`, the check the
 * HTTP layer runs on every request with a credential. The check reads the list through a memo kept
 * by the workspace's security revision (`RevisionMemo`: on SQLite until the next commit; on
 * PostgreSQL while the request's auth read finds the revision it was read at, which every save moves
 * on), so it costs a map lookup on most requests and a saved list is enforced from the very next
 * request on every replica.
 */
export class AllowlistService {
  private readonly repo: AllowlistRepo
  private readonly policies: RevisionMemo<Policy>
  /** Matchers by the saved list's JSON: a commit elsewhere empties the memo, not these. */
  private readonly matchers = new Map<string, AddressMatcher>()
  private readonly refusals: RefusalLog

  constructor(private readonly d: AllowlistDeps) {
    this.repo = new AllowlistRepo(d.store)
    this.policies = new RevisionMemo(d.store, (ws) => this.policyOf(ws))
    this.refusals = new RefusalLog(d.clock)
  }

  /** `GET /v1/enterprise/ip-allowlist`: the list, and the caller's address as the server sees it. */
  async get(workspaceId: string, callerIp: string): Promise<AllowlistView> {
    return viewOf(await this.repo.get(workspaceId), callerIp)
  }

  /**
   * `PUT /v1/enterprise/ip-allowlist`: saves the list, normalized. An enabled list needs an entry, and
   * one that leaves out the caller's own address is refused (409 `would_lock_out`) unless confirmed.
   */
  async put(p: Principal, body: AllowlistChange, caller: Omit<Caller, 'route'>): Promise<AllowlistView> {
    const cidrs = normalizeEntries(body.cidrs)
    if (body.enabled && cidrs.length === 0) {
      throw validationFailed([
        {
          loc: ['body', 'cidrs'],
          msg: 'An enabled allowlist needs at least one entry: with none, every request would be refused',
          type: 'value_error',
        },
      ])
    }
    const listed = new AddressMatcher(cidrs).allows(caller.ip)
    if (body.enabled && !listed && body.confirmLockout !== true) {
      throw fail('would_lock_out', undefined, { address: caller.ip })
    }
    const row: AllowlistRow = {
      workspaceId: p.workspaceId,
      enabled: body.enabled,
      cidrs: JSON.stringify(cidrs),
      updatedBy: p.userId ?? p.keyId,
      updatedAt: this.d.clock.now().getTime(),
    }
    await this.d.store.unit(async () => {
      // Read in the unit that saves, with the workspace's list held (an advisory lock on PostgreSQL,
      // SQLite's one writer), so the event's before is the list this save replaced, however many
      // saves race.
      await this.hold(p.workspaceId)
      const before = await this.repo.get(p.workspaceId)
      const was = before ? (JSON.parse(before.cidrs) as string[]) : []
      await this.repo.save(row)
      await this.d.workspaces.bumpSecurityRev(p.workspaceId)
      await this.d.events.publish({
        type: 'ip_allowlist.updated',
        workspaceId: p.workspaceId,
        payload: {
          actor: actorOf(p, caller.ip, caller.requestId),
          target: { type: 'workspace', id: p.workspaceId },
          details: {
            enabled: body.enabled,
            was_enabled: before?.enabled ?? false,
            cidrs,
            added: cidrs.filter((c) => !was.includes(c)),
            removed: was.filter((c) => !cidrs.includes(c)),
            // Saved although it shuts out the address it was saved from.
            confirmed_lockout: body.enabled && !listed,
          },
        },
      })
    })
    return viewOf(row, caller.ip)
  }

  /**
   * The operator's break-glass (`engram allowlist WORKSPACE --off`): switches a workspace's list off,
   * its entries kept, for when no admin can reach the server from a listed address. Answers the list
   * as it was, or undefined when the workspace has none.
   */
  switchOff(workspaceId: string, actor: Actor): Promise<AllowlistRow | undefined> {
    return this.d.store.unit(async () => {
      await this.hold(workspaceId)
      const before = await this.repo.get(workspaceId)
      if (!before) return undefined
      const cidrs = JSON.parse(before.cidrs) as string[]
      await this.repo.save({
        ...before,
        enabled: false,
        updatedBy: null,
        updatedAt: this.d.clock.now().getTime(),
      })
      await this.d.workspaces.bumpSecurityRev(workspaceId)
      await this.d.events.publish({
        type: 'ip_allowlist.updated',
        workspaceId,
        payload: {
          actor,
          target: { type: 'workspace', id: workspaceId },
          details: {
            enabled: false,
            was_enabled: before.enabled,
            cidrs,
            added: [],
            removed: [],
            confirmed_lockout: false,
            via: 'engram allowlist --off',
          },
        },
      })
      return before
    })
  }

  /** A workspace's saved list, as the operator's command shows it; undefined when it has none. */
  saved(workspaceId: string): Promise<AllowlistRow | undefined> {
    return this.repo.get(workspaceId)
  }

  /**
   * The check of every request with a credential: a workspace whose list is enabled refuses any
   * address not on it with 403 `ip_not_allowed`, sessions and API keys alike, whatever the route.
   * The address is worked out only for such a workspace.
   */
  readonly admit: AccessCheck = async (principal, caller) => {
    const { matcher } = (await this.policies.get(principal.workspaceId, principal.securityRev)) ?? OPEN
    if (matcher === null) return
    const address = caller.ip
    if (matcher.allows(address)) return
    await this.recordRefusal(principal, caller, address)
    throw fail('ip_not_allowed', undefined, { address })
  }

  /** Holds a workspace's list in the calling unit until it ends: one change at a time reads and saves it. */
  private hold(workspaceId: string): Promise<void> {
    return holdInUnit(this.d.store, `allowlist:${workspaceId}`)
  }

  private async policyOf(workspaceId: string): Promise<Policy> {
    const row = await this.repo.enforced(workspaceId)
    // A workspace without a list is memoised too (StoreMemo keeps only rows that exist).
    if (!row?.enabled) return OPEN
    let matcher = this.matchers.get(row.cidrs)
    if (!matcher) {
      if (this.matchers.size >= MAX_MATCHERS) this.matchers.clear()
      matcher = new AddressMatcher(JSON.parse(row.cidrs) as string[])
      this.matchers.set(row.cidrs, matcher)
    }
    return { matcher }
  }

  /** An audit row for the refusal, at most one a minute per address (allowlist.refusals.ts). */
  private async recordRefusal(principal: Principal, caller: Caller, address: string): Promise<void> {
    // Decided in process before the unit (allowlist.refusals.ts); the unit awaits only the outbox.
    const repeats = this.refusals.take(principal.workspaceId, address)
    if (repeats === null) return
    const actor: Actor = actorOf(principal, address, caller.requestId)
    try {
      await this.d.store.unit(() =>
        this.d.events.publish({
          type: 'ip_allowlist.refused',
          workspaceId: principal.workspaceId,
          payload: { actor, details: { address, route: caller.route, unrecorded_before: repeats } },
        }),
      )
    } catch (e) {
      // The refusal stands whether or not its row could be written.
      this.d.log.warn('could not record a request refused by the IP allowlist', { error: String(e) })
    }
  }
}

/** A workspace's list as its admin sees it (an empty, disabled one when it never saved any). */
function viewOf(row: AllowlistRow | undefined, callerIp: string): AllowlistView {
  const cidrs = row ? (JSON.parse(row.cidrs) as string[]) : []
  return {
    enabled: row?.enabled ?? false,
    cidrs,
    yourAddress: callerIp,
    yourAddressListed: new AddressMatcher(cidrs).allows(callerIp),
    updatedAt: row ? new Date(row.updatedAt) : null,
  }
}
