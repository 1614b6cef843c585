import type { Db } from '../../platform/db/db'
import { auditEvents } from './audit.tables'

/** One audit row to append. */
export type NewAuditRow = typeof auditEvents.$inferInsert

/** Data functions of the audit log: it is only ever appended to. */
export class AuditRepo {
  constructor(private readonly db: Db) {}

  /** Appends a row; with `once`, a row with the same id already there is left as it is. */
  insert(row: NewAuditRow, once = false): void {
    const q = this.db.insert(auditEvents).values(row)
    ;(once ? q.onConflictDoNothing() : q).run()
  }
}
