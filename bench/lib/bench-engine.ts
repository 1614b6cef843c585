// The engine as the in-process quality benchmarks build it (bench/quality.ts, bench/retrieval.ts): a
// fresh database in a scratch directory, objects in memory, and the product's default re-ranking by
// meaning (the built-in static word vectors unless ENGRAM_EMBED_BUILTIN=false) and the built-in
// sentence encoder for the support check (unless ENGRAM_EMBED_ENCODER=false), or a local embeddings
// server with `embed` (then no encoder, as in the product). Documents are onboarded the way a base holds them: sections of at
// most 12,000 characters cut at paragraph boundaries.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrations } from '../../migrations/index'
import { embedderFrom, encoderFrom } from '../../src/features/engine/embedder'
import { Engine } from '../../src/features/engine/engine.service'
import { systemClock } from '../../src/platform/clock/clock'
import { loadConfig } from '../../src/platform/config/config.load'
import { openDatabase } from '../../src/platform/db/db'
import { migrate } from '../../src/platform/db/migrate'
import { createLogger } from '../../src/platform/log/log'
import { type EmbeddingsServer, startUseEmbeddingsServer } from './use-embeddings-server'

/** How the benchmark's engine re-ranks by meaning. */
export interface BenchEngineOptions {
  /** Re-rank with a local embeddings server (bench/lib/use-embeddings-server.ts). */
  embed?: boolean
  /** The similarity's weight; the configuration's default otherwise. */
  embedWeight?: string
  /** The built-in encoder on or off, whatever ENGRAM_EMBED_ENCODER says (never beside a server). */
  encoder?: boolean
}

/** A benchmark's engine, the embeddings server it uses (if any), and how to remove both. */
export interface BenchEngine {
  engine: Engine
  embedServer: EmbeddingsServer | null
  /** What re-ranks by meaning, for the log. */
  meaning: string
  /** How many questions the built-in encoder was asked about, and the milliseconds it took. */
  encoderStats(): { asked: number; ms: number }
  close(): void
}

/** Builds an engine over a scratch database; close() removes the database and stops the server. */
export async function createBenchEngine(options: BenchEngineOptions = {}): Promise<BenchEngine> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-quality-'))
  const db = openDatabase(join(dir, 'engram.db'))
  migrate(db, migrations)
  const objects = new Map<string, Uint8Array>()
  const store = {
    getBytes: async (k: string) => objects.get(k) ?? null,
    put: async (k: string, b: unknown) => {
      objects.set(k, b as Uint8Array)
      return { key: k, size: (b as Uint8Array).length, sha256: '' }
    },
    delete: async (k: string) => void objects.delete(k),
  }
  const embedServer = options.embed ? await startUseEmbeddingsServer() : null
  const weight = options.embedWeight
  // The product's defaults and its own reading of ENGRAM_EMBED_BUILTIN and ENGRAM_EMBED_ENCODER
  // (nothing else: no config file).
  const c = loadConfig({
    env: {
      ENGRAM_EMBED_BUILTIN: process.env.ENGRAM_EMBED_BUILTIN,
      ENGRAM_EMBED_ENCODER: process.env.ENGRAM_EMBED_ENCODER,
    },
    readFile: () => null,
  }).embed
  const embedder = embedderFrom(
    {
      ...c,
      url: embedServer?.url ?? null,
      model: 'use-lite',
      timeout_ms: 600_000,
      weight: Number(weight ?? c.weight),
      builtin_weight: Number(weight ?? c.builtin_weight),
    },
    systemClock,
    createLogger('warn'),
  )
  const stats = { asked: 0, ms: 0 }
  const encoder = encoderFrom(
    { ...c, encoder: options.encoder ?? c.encoder, url: embedServer?.url ?? null },
    createLogger('warn'),
  )
  const engine = new Engine({
    db,
    store,
    cacheBytes: 512 * 1024 * 1024,
    embedder,
    encoder: encoder
      ? async (texts) => {
          const t0 = performance.now()
          try {
            return await encoder.embed(texts)
          } finally {
            stats.asked++
            stats.ms += performance.now() - t0
          }
        }
      : null,
  })
  const meaning = embedder ? `${embedder.model} at weight ${embedder.weight}` : 'none'
  return {
    engine,
    embedServer,
    meaning: encoder ? `${meaning}, support check with the built-in encoder` : meaning,
    encoderStats: () => ({ ...stats }),
    close() {
      encoder?.close()
      embedServer?.stop()
      db.$client.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Splits an article into sections of at most `max` characters at paragraph boundaries. */
export function sections(text: string, max = 12_000): string[] {
  const out: string[] = []
  let cur: string[] = []
  let len = 0
  for (const p of text.split(/\n[ \t]*\n/)) {
    if (len > 0 && len + p.length > max) {
      out.push(cur.join('\n\n'))
      cur = []
      len = 0
    }
    cur.push(p)
    len += p.length + 2
  }
  if (cur.length) out.push(cur.join('\n\n'))
  return out
}

/** A document to onboard: its file name (its id in the base is `doc_<file>`), title and text. */
export interface BenchDocument {
  file: string
  title: string
  text: string
}

/** What onboarding a list of documents took and made. */
export interface Onboarded {
  wall: number
  cpu: number
  cartBytes: number
  sections: number
}

/**
 * Onboards `docs` into `baseId`, section by section; returns wall and CPU seconds, cartridge bytes and
 * the number of sections. `mark`, when given, ends every section's text, so that a scratch pass does
 * not share the real base's cartridges (they are addressed by content).
 */
export async function onboardDocuments(
  engine: Engine,
  baseId: string,
  docs: readonly BenchDocument[],
  mark?: string,
): Promise<Onboarded> {
  const done: Onboarded = { wall: 0, cpu: 0, cartBytes: 0, sections: 0 }
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  for (const { file, text, title } of docs)
    for (const [i, part] of sections(text).entries()) {
      const r = await engine.onboardSection({
        workspaceId: 'ws_bench',
        baseId,
        documentId: `doc_${file}`,
        sectionId: `${baseId}_${file}_${i}`,
        title,
        filename: file,
        text: mark ? `${part}\n\n${mark}` : part,
      })
      done.cartBytes += r.cartBytes
      done.sections++
    }
  const cpu = process.cpuUsage(cpu0)
  done.wall = (performance.now() - t0) / 1000
  done.cpu = (cpu.user + cpu.system) / 1e6
  return done
}
