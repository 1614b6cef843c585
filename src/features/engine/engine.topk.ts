import type { Database, Statement } from 'bun:sqlite'
import { ascending, descending } from './rank/index'

// FTS5's bm25() constants (fts5_aux.c): a term's share of a passage's score is
// idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average)), its idf at least IDF_MIN.
const K1 = 1.2
const IDF_MIN = 1e-6
// A bound is raised by this fraction, so rounding in FTS5's sums can never pass it.
const SLACK = 1e-9
// Rare-term sets queried before giving up on pruning.
const TRIES = 3
// Passages holding the terms (summed over terms) below which the plain query is run at once.
const PRUNE_FROM = 2000

/** A query term as FTS5 names it, with its passage count in the table. */
export interface TopkTerm {
  token: string
  df: number
}

/** The statements over one FTS5 table that bm25Top runs (FtsIndex prepares them). */
export interface Bm25Statements {
  /** Every passage matching a query, with its bm25(). */
  scores: Statement
  /** The `limit` best passages matching a query by bm25(). */
  top: Statement
}

/** A passage id and its BM25 score as FTS5 orders them (lower is better). */
export interface TopkHit {
  id: number
  rank: number
}

/**
 * The `limit` best passages of an FTS5 table for an OR-query of terms by bm25(), in its order.
 * FTS5 computes bm25() for every passage holding any term, and at 100x squad-dev the common terms
 * of a question hold thousands, which made this query most of rag's time. So it is answered like
 * MaxScore: a term's share of a score is below idf * (K1 + 1), so a passage holding none of the
 * rarest terms scores less than the other terms' shares summed. The passages holding a rare term
 * are scored in full by a query that keeps only them, `(rare) AND (all)`, whose bm25() counts the
 * rare terms twice, less their score on the rare terms alone; when the `limit`-th best of them beats
 * that sum, they hold the best passages; else one more term joins the rare ones, a few times. The
 * same passages come out as from the plain query, in the same order but for exact ties (broken by
 * id, as FTS5's rowid order does) and rounding far below any gap between distinct scores.
 */
export function bm25Top(
  index: Bm25Statements,
  passages: number,
  terms: TopkTerm[],
  limit: number,
  pruneFrom = PRUNE_FROM,
): TopkHit[] {
  const or = (ts: TopkTerm[]) => ts.map((t) => `"${t.token}"`).join(' OR ')
  const all = or(terms)
  const share = (t: TopkTerm) =>
    (K1 + 1) * Math.max(IDF_MIN, Math.log((passages - t.df + 0.5) / (t.df + 0.5)))
  const byShare = [...terms].sort((a, b) => descending(share(a), share(b)))
  // Few passages to score: the plain query is cheaper than any pruning.
  let held = 0
  for (const t of terms) held += t.df
  if (held < pruneFrom) return index.top.all(all, limit) as TopkHit[]
  // The rarest terms until their passages could fill the pool.
  let r = 1
  let rareHeld = byShare[0]!.df
  for (; r < byShare.length && rareHeld < limit; r++) rareHeld += byShare[r]!.df
  // The limit-th best score found so far among passages holding a rare term: a rare set whose
  // other terms could give more than it cannot prune, and is not asked.
  let kth = 0
  for (let tries = 0; tries < TRIES && r < byShare.length; r++, rareHeld += byShare[r - 1]!.df) {
    let rest = 0
    for (const t of byShare.slice(r)) rest += share(t)
    rest = rest * (1 + SLACK) + SLACK
    if (tries > 0 && kth <= rest) continue
    // Scoring the rare terms' passages twice must cost less than scoring every passage once.
    if (2 * rareHeld > held) break
    tries++
    const rare = or(byShare.slice(0, r))
    const own = index.scores.all(rare) as TopkHit[]
    if (own.length < limit) continue
    const both = index.scores.all(`(${rare}) AND (${all})`) as TopkHit[]
    // Both queries list the same passages in rowid order; a look-up only if they ever did not.
    const aligned = own.length === both.length && both.every((h, i) => h.id === own[i]!.id)
    const byId = aligned ? null : new Map(own.map((o) => [o.id, o.rank]))
    const hits = both.map((h, i) => ({ id: h.id, rank: h.rank - (byId ? byId.get(h.id)! : own[i]!.rank) }))
    hits.sort((a, b) => ascending(a.rank, b.rank) || a.id - b.id)
    // bm25() is negative: the limit-th best score is -rank. A passage holding no rare term scores
    // less than `rest`, so when the limit-th best beats it, no such passage can enter.
    kth = -hits[limit - 1]!.rank
    if (kth > rest) return hits.slice(0, limit)
  }
  return index.top.all(all, limit) as TopkHit[]
}

/** The `limit` best passages by BM25 of an OR-query of FTS5 tokens among the passages of some documents. */
export function bm25Within(
  client: Database,
  table: string,
  tokens: string[],
  documentIds: string[],
  limit: number,
): TopkHit[] {
  const marks = documentIds.map(() => '?').join(',')
  return client
    .query(
      `SELECT f.rowid AS id, f.rank AS rank FROM ${table} f JOIN engine_passages p ON p.id = f.rowid
       JOIN engine_sections s ON s.section_id = p.section_id
       WHERE ${table} MATCH ? AND s.document_id IN (${marks}) ORDER BY f.rank LIMIT ?`,
    )
    .all(tokens.map((t) => `"${t}"`).join(' OR '), ...documentIds, limit) as TopkHit[]
}
