import type { Static } from '@sinclair/typebox'
import type { Actor } from '../../platform/auth/principal'
import { iso } from '../../platform/clock/clock'
import type { Db } from '../../platform/db/db'
import { transaction } from '../../platform/db/transaction'
import type { Outbox } from '../../platform/events/outbox'
import { keysetPage, type ListResult, type PageRequest } from '../../platform/paging/paging'
import { type AuditRow, type Break, ChainWalker } from './audit.chain'
import { type AuditFilter, AuditRepo } from './audit.repo'
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
    private readonly db: Db,
    private readonly events: Outbox,
  ) {
    this.repo = new AuditRepo(db)
  }

  /** Appends one row under a given id and time; a second call with the same id does nothing. */
  append(id: string, at: number, e: AuditEntry): void {
    this.repo.append({
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
    })
  }

  /** Chains every row written before the chain existed (start-up); returns how many. */
  chainAll(): number {
    let n = 0
    for (const ws of this.repo.unchainedWorkspaces()) n += this.repo.chainPending(ws)
    return n
  }

  /** A page of a workspace's log, newest first. */
  list(workspaceId: string, f: AuditFilter, page: PageRequest | null): ListResult<EntryResp> {
    this.repo.chainPending(workspaceId)
    const limit = page?.limit ?? Number.MAX_SAFE_INTEGER
    const before = typeof page?.after?.[0] === 'number' ? page.after[0] : null
    const rows = this.repo.page(workspaceId, f, before, limit === Number.MAX_SAFE_INTEGER ? -1 : limit + 1)
    return keysetPage(rows, limit, (r) => [r.seq as number], entryResp, this.repo.count(workspaceId, f))
  }

  /** The deletion receipts of a workspace, newest first. */
  deletions(workspaceId: string, f: AuditFilter, page: PageRequest | null): ListResult<EntryResp> {
    return this.list(workspaceId, { ...f, actions: DELETION_ACTIONS }, page)
  }

  /**
   * The rows an export holds, oldest first, a batch at a time: those chained when it is called
   * (later ones, the export's own audit row among them, are for the next export). The batches are
   * read lazily, as they are consumed.
   */
  exportRows(workspaceId: string, f: AuditFilter): Iterator<EntryResp[]> {
    this.repo.chainPending(workspaceId)
    const upto = this.repo.last(workspaceId)?.seq ?? 0
    const repo = this.repo
    return (function* () {
      let after = 0
      for (;;) {
        const rows = repo.batch(workspaceId, f, after, upto, BATCH)
        if (rows.length === 0) return
        after = rows[rows.length - 1]?.seq as number
        yield rows.map(entryResp)
      }
    })()
  }

  /** Tells that `actor` exported something (the export's own audit row). */
  exported(
    action: 'audit.exported' | 'usage.exported',
    workspaceId: string,
    actor: Actor,
    details: object,
  ): void {
    transaction(this.db, () =>
      this.events.emit(this.db, {
        type: action,
        workspaceId,
        payload: { actor, details: { ...details } },
      }),
    )
  }

  /** Walks a workspace's whole chain, a batch at a time, and tells the first row that breaks it. */
  verify(workspaceId: string): ChainReport {
    this.repo.chainPending(workspaceId)
    const walker = new ChainWalker()
    // Up to the last place, and past it: a row with a place beyond the end is found by the walk.
    const upto = Number.MAX_SAFE_INTEGER
    let after = 0
    for (;;) {
      const rows = this.repo.batch(workspaceId, {}, after, upto, BATCH)
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
