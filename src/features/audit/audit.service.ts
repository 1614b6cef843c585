import type { Static } from '@sinclair/typebox'
import type { Actor } from '../../platform/auth/principal'
import { iso } from '../../platform/clock/clock'
import { isUniqueViolation } from '../../platform/db/failures'
import type { Store } from '../../platform/db/store'
import type { Outbox } from '../../platform/events/outbox'
import { keysetPage, type ListResult, type PageRequest } from '../../platform/paging/paging'
import { type AuditRow, type Break, ChainWalker } from './audit.chain'
import { type AuditFilter, AuditRepo, type NewAuditRow } from './audit.repo'
import type { AuditEntryResp } from './audit.schemas'

type EntryResp = Static<typeof AuditEntryResp>

/** One action to record. */
export interface AuditEntry {
  workspaceId: string
  actor: Actor
  action: string
  target?: { type: string; id: string } | null
  details?: Record<string, unknown>
}

/** The actions that are deletion receipts (`GET /audit/deletions`). */
export const DELETION_ACTIONS = ['document.deleted', 'corpus.deleted'] as const

/** Rows read from the database at a time by exports and checks: memory stays bounded by it. */
export const BATCH = 1000

/** Appends tried before giving up when other writers keep taking the chain's next place (PostgreSQL). */
const APPEND_TRIES = 5

/** What `GET /audit/verify` answers. */
export interface ChainReport {
  ok: boolean
  checked: number
  first_broken: Break | null
  head: { seq: number; hash: string } | null
}

/**
 * The audit log. Rows are written one way: the audit subscriber appends one for each audited
 * domain event (`audit.subscribers.ts`), chained per workspace, inside the delivery's transaction;
 * a feature audits an action by emitting its event, never by calling this service. This service
 * reads them: pages, the deletion receipts, exports and the chain check.
 */
export class AuditService {
  private readonly repo: AuditRepo

  constructor(
    private readonly store: Store,
    private readonly events: Outbox,
  ) {
    this.repo = new AuditRepo(store)
  }

  /**
   * Appends one row under a given id and time, in a unit (a savepoint of the caller's); a second
   * call with the same id does nothing. Another writer that took the chain's next place first (on
   * PostgreSQL: two transactions read the same end) makes the unique index refuse this one: its
   * savepoint is undone and it is placed again after that writer's row.
   */
  async append(id: string, at: number, e: AuditEntry): Promise<void> {
    const row: NewAuditRow = {
      id,
      workspaceId: e.workspaceId,
      actorType: e.actor.type,
      actorId: e.actor.id,
      action: e.action,
      targetType: e.target?.type ?? null,
      targetId: e.target?.id ?? null,
      details: JSON.stringify(e.details ?? {}),
      ip: e.actor.ip ?? null,
      requestId: e.actor.requestId ?? null,
      createdAt: at,
    }
    for (let tries = 1; ; tries++) {
      try {
        await this.store.unit(() => this.repo.append(row))
        return
      } catch (err) {
        if (tries >= APPEND_TRIES || !isUniqueViolation(err)) throw err
      }
    }
  }

  /** Chains every row written before the chain existed (start-up); returns how many. */
  async chainAll(): Promise<number> {
    let n = 0
    for (const ws of await this.repo.unchainedWorkspaces()) n += await this.chain(ws)
    return n
  }

  /** Chains a workspace's rows written before the chain existed, if it has any (a read when none). */
  private async chain(workspaceId: string): Promise<number> {
    if (!(await this.repo.hasUnchained(workspaceId))) return 0
    return this.store.unit(() => this.repo.chainPending(workspaceId))
  }

  /** A page of a workspace's log, newest first. */
  async list(workspaceId: string, f: AuditFilter, page: PageRequest | null): Promise<ListResult<EntryResp>> {
    await this.chain(workspaceId)
    const before = typeof page?.after?.[0] === 'number' ? page.after[0] : null
    const rows = await this.repo.page(workspaceId, f, before, page ? page.limit + 1 : null)
    const total = await this.repo.count(workspaceId, f)
    return keysetPage(rows, page?.limit ?? rows.length, (r) => [r.seq as number], entryResp, total)
  }

  /** The deletion receipts of a workspace, newest first. */
  deletions(workspaceId: string, f: AuditFilter, page: PageRequest | null): Promise<ListResult<EntryResp>> {
    return this.list(workspaceId, { ...f, actions: DELETION_ACTIONS }, page)
  }

  /**
   * The rows an export holds, oldest first, a batch at a time: those chained when it is called
   * (later ones, the export's own audit row among them, are for the next export). The batches are
   * read lazily, as they are consumed.
   */
  async exportRows(workspaceId: string, f: AuditFilter): Promise<AsyncIterator<EntryResp[]>> {
    await this.chain(workspaceId)
    const upto = (await this.repo.last(workspaceId))?.seq ?? 0
    const repo = this.repo
    return (async function* () {
      let after = 0
      for (;;) {
        const rows = await repo.batch(workspaceId, f, after, upto, BATCH)
        if (rows.length === 0) return
        after = rows[rows.length - 1]?.seq as number
        yield rows.map(entryResp)
      }
    })()
  }

  /** Tells that `actor` exported something (the export's own audit row). */
  async exported(
    action: 'audit.exported' | 'usage.exported',
    workspaceId: string,
    actor: Actor,
    details: object,
  ): Promise<void> {
    await this.store.unit(async () => {
      await this.events.publish({ type: action, workspaceId, payload: { actor, details: { ...details } } })
    })
  }

  /** Walks a workspace's whole chain, a batch at a time, and tells the first row that breaks it. */
  async verify(workspaceId: string): Promise<ChainReport> {
    await this.chain(workspaceId)
    const walker = new ChainWalker()
    // Up to the last place, and past it: a row with a place beyond the end is found by the walk.
    const upto = Number.MAX_SAFE_INTEGER
    let after = 0
    for (;;) {
      const rows = await this.repo.batch(workspaceId, {}, after, upto, BATCH)
      if (rows.length === 0 || !walker.push(rows)) break
      after = rows[rows.length - 1]?.seq as number
    }
    return {
      ok: walker.broken === null,
      checked: walker.checked,
      first_broken: walker.broken,
      head: walker.head,
    }
  }
}

/** A row as the API shows it. */
export function entryResp(r: AuditRow): EntryResp {
  return {
    id: r.id,
    seq: r.seq as number,
    created_at: iso(new Date(r.createdAt)),
    action: r.action,
    actor_type: r.actorType,
    actor_id: r.actorId,
    target_type: r.targetType,
    target_id: r.targetId,
    details: JSON.parse(r.details) as Record<string, unknown>,
    ip: r.ip,
    request_id: r.requestId,
    prev_hash: r.prevHash,
    hash: r.hash as string,
  }
}
