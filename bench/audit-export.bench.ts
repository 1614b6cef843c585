// Issue 36: does exporting a long audit log hold the server's memory bounded? `engram serve` in a
// process of its own (bench/lib/engram-process.ts); its workspace's log is filled from this process
// (the same repo, on the server's database file, as a second process would) to 10,000 rows, then to
// 100,000 and then 300,000, and each size is exported as JSON Lines and as CSV, read chunk by chunk,
// while the server's resident set is sampled. Then the whole chain is verified. If the export held
// the rows in memory, the peak would grow with the row count; streamed a batch at a time, it does not.
//   npm run bench audit-export
//   bun run bench/audit-export.bench.ts --sizes=10000,100000
// BENCH_ENGRAM=source serves from the sources instead of the compiled executable.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AuditRepo } from '../src/features/audit/audit.repo'
import { openDatabase } from '../src/platform/db/db'
import { sqliteStore } from '../src/platform/db/store'
import { spawnEngram } from './lib/engram-process'

const arg = (name: string) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1]
const sizes = (arg('sizes') ?? '10000,100000,300000').split(',').map(Number)
const MB = 1024 * 1024

const dataDir = mkdtempSync(join(tmpdir(), 'engram-bench-audit-'))
// BUN_JSC_* settings of the shell reach the server (BUN_JSC_forceRAMSize=... to see the collector's share).
const jsc = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => k.startsWith('BUN_JSC_')),
) as Record<string, string>
const server = await spawnEngram({ ENGRAM_DATA_DIR: dataDir, ...jsc })
const auth = { authorization: `Bearer ${server.token}` }
const me = (await (await fetch(`${server.url}/v1/auth/me`, { headers: auth })).json()) as {
  workspace_id: string
}
const workspaceId = me.workspace_id

const db = openDatabase(join(dataDir, 'engram.db'))
const store = sqliteStore(db)
const repo = new AuditRepo(store)
let written = 0

/** Appends rows of the kinds a busy workspace writes (about 400 bytes each, details included) up to `n`. */
async function fillTo(n: number): Promise<number> {
  const t0 = performance.now()
  const start = written
  while (written < n) {
    await store.unit(async () => {
      for (let i = 0; i < 1000 && written < n; i++, written++) {
        await repo.append({
          id: `aud_bench${String(written).padStart(8, '0')}`,
          workspaceId,
          actorType: written % 3 === 0 ? 'api_key' : 'user',
          actorId: `usr_bench${written % 97}`,
          action: ['document.downloaded', 'auth.sign_in', 'document.deleted', 'api_key.created'][
            written % 4
          ]!,
          targetType: 'document',
          targetId: `doc_${written.toString(36).padStart(12, '0')}`,
          details: JSON.stringify({
            corpus_id: 'cor_0123456789abcdefghij',
            filename: `shared/dept-${written % 17}/project-${written % 251}/report-${written}.pdf`,
            size: 10_000 + (written % 5000),
            via: 'api',
          }),
          ip: `10.${(written >> 16) & 255}.${(written >> 8) & 255}.${written & 255}`,
          requestId: `req_${written.toString(36).padStart(16, '0')}`,
          createdAt: Date.parse('2026-01-01T00:00:00Z') + written * 1000,
        })
      }
    })
  }
  return ((written - start) / (performance.now() - t0)) * 1000
}

/** Exports in a format, reading chunk by chunk, sampling the server's RSS every 20 ms. */
async function exportOnce(format: 'csv' | 'jsonl') {
  const before = server.memory().rss
  let peak = before
  const sampler = setInterval(() => {
    peak = Math.max(peak, server.memory().rss)
  }, 20)
  const t0 = performance.now()
  const res = await fetch(`${server.url}/v1/audit/export?format=${format}`, { headers: auth })
  if (!res.ok) throw new Error(`export: ${res.status} ${await res.text()}`)
  let bytes = 0
  let lines = 0
  let chunks = 0
  for await (const c of res.body as unknown as AsyncIterable<Uint8Array>) {
    chunks++
    bytes += c.byteLength
    for (let i = 0; i < c.byteLength; i++) if (c[i] === 10) lines++
    peak = Math.max(peak, server.memory().rss)
  }
  const ms = performance.now() - t0
  clearInterval(sampler)
  return { format, ms, bytes, lines, chunks, before, peak, hwm: server.memory().peak }
}

console.log(`server RSS at idle: ${(server.memory().rss / MB).toFixed(0)} MB`)
for (const n of sizes) {
  const rate = await fillTo(n)
  console.log(
    `\n${n.toLocaleString('en')} rows (appended at ${Math.round(rate).toLocaleString('en')} rows/s, chained)`,
  )
  for (const format of ['jsonl', 'csv'] as const) {
    const r = await exportOnce(format)
    console.log(
      `  ${format.padEnd(5)} ${(r.ms / 1000).toFixed(2)} s, ${(r.bytes / MB).toFixed(1)} MB, ${r.lines.toLocaleString('en')} lines in ${r.chunks} chunks (${Math.round((r.lines / r.ms) * 1000).toLocaleString('en')} rows/s); server RSS ${(r.before / MB).toFixed(0)} MB before, peak ${(r.peak / MB).toFixed(0)} MB during (+${((r.peak - r.before) / MB).toFixed(0)} MB); VmHWM ${(r.hwm / MB).toFixed(0)} MB`,
    )
  }
  const t0 = performance.now()
  const v = (await (await fetch(`${server.url}/v1/audit/verify`, { headers: auth })).json()) as {
    ok: boolean
    checked: number
  }
  console.log(
    `  verify ${v.ok ? 'ok' : 'BROKEN'}, ${v.checked.toLocaleString('en')} rows in ${((performance.now() - t0) / 1000).toFixed(2)} s; server RSS after ${(server.memory().rss / MB).toFixed(0)} MB`,
  )
}

db.$client.close()
await server.stop()
rmSync(dataDir, { recursive: true, force: true })
