import type { Static } from '@sinclair/typebox'
import { iso } from '../../../platform/clock/clock'
import type { ScaleRunRow } from '../scale.repo'
import type { ScaleRunSaveReq } from '../scale.schemas'

/** The wire shape of a saved run. */
export function scaleRunResp(row: ScaleRunRow) {
  const records = JSON.parse(row.records) as { level: number }[]
  return {
    id: row.id,
    corpus_id: row.corpusId,
    queries: JSON.parse(row.queries) as string[],
    max_concurrency: row.maxConcurrency,
    levels: records.map((r) => r.level),
    records,
    note: row.note,
    created_at: iso(new Date(row.createdAt)),
  }
}

type Stats = Static<typeof ScaleRunSaveReq>['records'][number]['cart']

/** Keeps only the fields of a record this version knows, so a saved run holds nothing else. */
export function cleanRecord(r: Static<typeof ScaleRunSaveReq>['records'][number]) {
  const stats = (x: Stats) => ({
    qps: x.qps,
    ok: x.ok,
    reqs: x.reqs,
    ttft: x.ttft,
    ttft_p95: x.ttft_p95,
    lat: x.lat,
    lat_p95: x.lat_p95,
    cpu_ms: x.cpu_ms ?? null,
  })
  return { level: r.level, cart: stats(r.cart), rag: stats(r.rag), ...(r.partial ? { partial: true } : {}) }
}
