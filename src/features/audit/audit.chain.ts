// The hash chain of a workspace's audit rows. A row's hash is the SHA-256 of its canonical form:
// a JSON array of its fields in a fixed order, the previous row's hash last. JSON.stringify of an
// array of strings, numbers and nulls has one spelling, so the same row always gives the same
// bytes; `details` is hashed as the stored text, byte for byte. A row changed, removed or moved
// breaks its own hash or the next row's link, and an export carries the hashes, so anyone holding
// one can check it without the server (docs/governance.md).
import { sha256Hex } from '../../platform/crypto/hash'
import type { auditEvents } from './audit.tables'

/** A stored audit row. */
export type AuditRow = typeof auditEvents.$inferSelect

/** Bumped if the canonical form ever changes; hashed first, so forms never collide. */
const FORM = 'engram.audit.v1'

/** The fields a row's hash covers, in their fixed order. */
export function canonicalRow(r: Omit<AuditRow, 'hash'>): string {
  return JSON.stringify([
    FORM,
    r.id,
    r.workspaceId,
    r.seq,
    r.actorType,
    r.actorId,
    r.action,
    r.targetType,
    r.targetId,
    r.details,
    r.ip,
    r.requestId,
    r.createdAt,
    r.prevHash,
  ])
}

/** The hash of a row: hex SHA-256 of its canonical form. */
export function rowHash(r: Omit<AuditRow, 'hash'>): string {
  return sha256Hex(canonicalRow(r))
}

/** Why a row breaks the chain. */
export type BreakReason = 'hash_mismatch' | 'prev_hash_mismatch' | 'seq_gap' | 'unchained'

/** The first row that breaks a chain. */
export interface Break {
  id: string
  seq: number | null
  reason: BreakReason
}

/**
 * Checks rows in `seq` order, batch after batch, carrying the last row's place across batches, so
 * a chain of any length is walked in bounded memory.
 */
export class ChainWalker {
  checked = 0
  broken: Break | null = null
  private prev: { seq: number; hash: string } | null = null

  /** Checks the next rows; returns false once a break is found (later rows are not looked at). */
  push(rows: readonly AuditRow[]): boolean {
    for (const r of rows) {
      if (this.broken) return false
      this.checked++
      this.broken = this.check(r)
      if (!this.broken) this.prev = { seq: r.seq as number, hash: r.hash as string }
    }
    return this.broken === null
  }

  /** The last row found sound: the chain's head once every row was pushed. */
  get head(): { seq: number; hash: string } | null {
    return this.prev
  }

  private check(r: AuditRow): Break | null {
    const at = { id: r.id, seq: r.seq }
    if (r.seq === null || r.hash === null) return { ...at, reason: 'unchained' }
    const expectedSeq = (this.prev?.seq ?? 0) + 1
    if (r.seq !== expectedSeq) return { ...at, reason: 'seq_gap' }
    if (r.prevHash !== (this.prev?.hash ?? null)) return { ...at, reason: 'prev_hash_mismatch' }
    if (rowHash(r) !== r.hash) return { ...at, reason: 'hash_mismatch' }
    return null
  }
}
