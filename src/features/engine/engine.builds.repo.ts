import type { Database, Statement } from 'bun:sqlite'
import { isBuilt, PENDING, UNMEASURED } from './engine.cart-keys'
import type { SectionRow } from './engine.rows'

/** An `engine_sections` row's columns under its JS keys (SectionRow, from engine.tables.ts). */
export const SECTION_COLUMNS = `section_id AS sectionId, base_id AS baseId, document_id AS documentId, title, filename,
  cart_key AS cartKey, n_passages AS nPassages, cart_bytes AS cartBytes`

/**
 * A base's cartridge bytes as a section row is inserted (`?1` its bytes, `?2` base, `?3` cartridge,
 * `?4` section) or deleted: its cartridge counted once a base. These were triggers (migrations 0012,
 * 0033) until 0034: a trigger gives its statement a statement journal, which makes FTS5 write the
 * terms it holds as a segment there and then, so a run's group wrote a segment a section.
 */
export const CART_BYTES = {
  add: `UPDATE engine_bases SET cart_bytes = cart_bytes + max(0, ?1 - coalesce((SELECT max(s.cart_bytes)
    FROM engine_sections s WHERE s.base_id = ?2 AND s.cart_key = ?3 AND s.section_id != ?4), 0)) WHERE base_id = ?2`,
  take: `UPDATE engine_bases SET cart_bytes = cart_bytes - max(0, ?1 - coalesce((SELECT max(s.cart_bytes)
    FROM engine_sections s WHERE s.base_id = ?2 AND s.cart_key = ?3), 0)) WHERE base_id = ?2`,
}

/** The sections still waiting for their cartridge (engine_sections' keys marked PENDING), and their builds. */
export class BuildsRepo {
  private readonly s: Record<string, Statement>
  constructor(readonly client: Database) {
    const q = (sql: string) => client.prepare(sql)
    // `cart_key >= 'pending:' AND cart_key < 'pending;'` is the prefix as an index range.
    const pending = "cart_key >= 'pending:' AND cart_key < 'pending;'"
    this.s = {
      waiting: q(
        `SELECT ${SECTION_COLUMNS} FROM engine_sections WHERE base_id = ? AND ${pending} ORDER BY section_id LIMIT ?`,
      ),
      left: q(`SELECT count(*) AS n FROM engine_sections WHERE base_id = ? AND ${pending}`),
      any: q(`SELECT 1 AS n FROM engine_sections WHERE base_id = ? AND ${pending} LIMIT 1`),
      size: q('SELECT max(cart_bytes) AS n FROM engine_sections WHERE cart_key = ?'),
      // A run's group asks for all of its sections at once (a JSON array of keys, of ids).
      sizes: q(`SELECT cart_key AS cartKey, max(cart_bytes) AS n FROM engine_sections
        WHERE cart_key IN (SELECT value FROM json_each(?)) GROUP BY cart_key`),
      rows: q(
        `SELECT ${SECTION_COLUMNS} FROM engine_sections WHERE section_id IN (SELECT value FROM json_each(?))`,
      ),
      holds: q('SELECT 1 AS n FROM engine_sections WHERE base_id = ? LIMIT 1'),
      bases: q(`SELECT DISTINCT base_id AS baseId FROM engine_sections WHERE ${pending}`),
      built: q(
        `SELECT DISTINCT cart_key AS cartKey FROM engine_sections WHERE base_id = ? AND cart_key NOT LIKE 'pending:%'
           AND cart_key NOT LIKE 'failed:%' ORDER BY cart_key`,
      ),
      users: q('SELECT DISTINCT base_id AS baseId FROM engine_sections WHERE cart_key = ?'),
      unmeasured: q(`SELECT DISTINCT cart_key AS cartKey FROM engine_sections WHERE ${UNMEASURED} LIMIT ?`),
      measure: q('UPDATE engine_sections SET cart_bytes = ? WHERE cart_key = ? AND cart_bytes = 0'),
      // Every section using the cartridge, in any base: they share its one object.
      damage: q(`UPDATE engine_sections SET cart_key = '${PENDING}' || cart_key WHERE cart_key = ?`),
      // Key and size in one update (a size already recorded is kept): the row never passes through the
      // unmeasured index, and the cart_bytes trigger counts the size under the new key (it reads NEW).
      setCart:
        q(`UPDATE engine_sections SET cart_key = ?1, cart_bytes = CASE WHEN cart_bytes = 0 THEN ?2 ELSE cart_bytes END
        WHERE section_id = ?3 AND cart_key = ?4`),
    }
  }

  /** Up to `limit` sections of the base waiting for their cartridge. */
  waiting(baseId: string, limit: number): SectionRow[] {
    return this.s.waiting!.all(baseId, limit) as SectionRow[]
  }

  /** How many sections of the base wait for their cartridge. */
  left(baseId: string): number {
    return (this.s.left!.get(baseId) as { n: number }).n
  }

  /** Whether any section of the base waits for its cartridge. */
  anyWaiting(baseId: string): boolean {
    return this.s.any!.get(baseId) !== null
  }

  /** Whether the base has any section indexed (a base deleted has none). */
  holds(baseId: string): boolean {
    return this.s.holds!.get(baseId) !== null
  }

  /** The size of a built cartridge some section uses (null when none does). */
  builtSize(cartKey: string): number | null {
    return (this.s.size!.get(cartKey) as { n: number | null }).n
  }

  /** `builtSize` of each key, in one statement (a key no section uses is missing). */
  builtSizes(cartKeys: readonly string[]): Map<string, number> {
    const rows = this.s.sizes!.all(JSON.stringify(cartKeys)) as { cartKey: string; n: number }[]
    return new Map(rows.map((r) => [r.cartKey, r.n]))
  }

  /** The rows of those of these sections that are indexed, by id, in one statement. */
  indexed(sectionIds: readonly string[]): Map<string, SectionRow> {
    const rows = this.s.rows!.all(JSON.stringify(sectionIds)) as SectionRow[]
    return new Map(rows.map((r) => [r.sectionId, r]))
  }

  /** Up to `limit` keys of built cartridges whose size no section records yet; measureCart records one's size. */
  unmeasuredCarts(limit: number): string[] {
    return (this.s.unmeasured!.all(limit) as Pick<SectionRow, 'cartKey'>[]).map((r) => r.cartKey)
  }
  measureCart(cartKey: string, bytes: number): void {
    this.s.measure!.run(bytes, cartKey)
  }

  /** Bases with sections waiting for their cartridge. */
  bases(): string[] {
    return (this.s.bases!.all() as Pick<SectionRow, 'baseId'>[]).map((r) => r.baseId)
  }

  /** The cartridges a base's sections use (built ones only), each once. */
  builtKeys(baseId: string): string[] {
    return (this.s.built!.all(baseId) as Pick<SectionRow, 'cartKey'>[]).map((r) => r.cartKey)
  }

  /**
   * Marks a cartridge missing or damaged in the store as waiting to be built again, for every section
   * using it (their deferred build compiles it anew); returns the bases of those sections.
   */
  damage(cartKey: string): string[] {
    if (!isBuilt(cartKey)) return []
    const bases = (this.s.users!.all(cartKey) as Pick<SectionRow, 'baseId'>[]).map((r) => r.baseId)
    this.s.damage!.run(cartKey)
    return bases
  }

  /**
   * Points a section at its built cartridge (or FAILED) unless its key changed since it was read
   * (the section indexed again, or removed); returns whether it did.
   */
  setCart(sectionId: string, from: string, to: string, bytes: number): boolean {
    return this.s.setCart!.run(to, bytes, sectionId, from).changes > 0
  }
}
