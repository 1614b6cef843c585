import type { Config } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { CorporaService, DocumentPurger } from '../corpora/corpora.service'
import { CompileThreads } from './cart/index'
import { machineMemoryBytes, QuietHook, releaseEmbeddedPages, warmBudgets } from './common/index'
import { BUILTIN_MODEL, embedderFrom, encoderFrom, encoderWaitFrom } from './embedder'
import { encodeJob, encodeSubscriber, queueEncode } from './engine.jobs'
import { Engine } from './engine.service'

/**
 * How long the compile threads' work (a run's chunking, its deferred build) must have been quiet
 * before the executable's pages their tables were read from are given back (about a millisecond).
 */
const RELEASE_QUIET_MS = 100
/**
 * Work without a quiet time (a run, its deferred build and forced runs back to back) gives them back
 * every so often too, as a piece of it settles: the compile thread reads its tables at its start,
 * and those pages were held through the whole burst (20 MB in the baseline bench's forced runs).
 */
const RELEASE_EVERY_MS = 500

export interface EngineFeatureDeps {
  config: Config['engine']
  embed: Config['embed']
  /**
   * The engine indexes corpora's documents and forgets them when they are deleted; corpora places
   * the passages an answer cites in their documents (page, section, offsets).
   */
  corpora: Pick<CorporaService, 'addPurger' | 'placePassages' | 'workspaceOf'>
  /** The data dir: a shared index's files are written and read there (engine.sync.ts). */
  dataDir: string
}

/**
 * The answer engine: search indexes, cartridges, extractive answers. No routes: answers,
 * onboarding and economics use it through its service. Cartridges compile on threads when
 * `engine.compile_threads` says so, and in process if a thread fails. The built-in sentence
 * encoder runs on a thread of its own, started by the first base to encode (its `encode` job, after
 * each onboarding run) or question to check; it stops when idle.
 */
export function engineFeature(p: Platform, d: EngineFeatureDeps): Feature<Engine> {
  const embedder = embedderFrom(d.embed, p.clock, p.log)
  const threads = d.config.compile_threads
  const compiler =
    threads > 0
      ? new CompileThreads({
          threads,
          staticVectors: embedder?.model === BUILTIN_MODEL,
          onFallback: (reason) =>
            p.log.warn('cartridges now compile in process: a compile thread failed', { reason }),
        })
      : null
  const encoder = encoderFrom(d.embed, p.log)
  // The tables (static vectors, WordNet) are copies of what they were read from: once the work that
  // read them is over, the executable's pages they came from are given back (embedded-pages.ts).
  const quiet = new QuietHook({
    quietMs: RELEASE_QUIET_MS,
    everyMs: RELEASE_EVERY_MS,
    run: () => void releaseEmbeddedPages(),
  })
  const service = new Engine({
    db: p.db,
    store: p.objects,
    cacheBytes: warmBudgets(d.config.warm_cache_mb, machineMemoryBytes()).total,
    compile: compiler ? (text) => quiet.track(compiler.compile(text)) : undefined,
    warmCompile: compiler ? () => compiler.warm() : undefined,
    chunk: compiler ? (texts, prefix) => quiet.track(compiler.index(texts, prefix)) : undefined,
    synonyms: compiler ? () => quiet.track(compiler.synonyms()) : undefined,
    embedder,
    encoder: encoder ? (texts, bulk) => encoder.embed(texts, bulk) : null,
    encoderWait: { ...encoderWaitFrom(d.embed, p.clock, p.log), loaded: () => !!encoder?.loaded },
    locate: (baseId, spans) => d.corpora.placePassages(baseId, spans),
    shared: d.config.shared_index ? { ...p, objects: p.objects, dir: d.dataDir } : null,
  })
  // Deleted documents leave the index and the cartridges (warm copy first) before the delete
  // answers, so no answer cites them afterwards; a deleted base also drops its queued jobs.
  d.corpora.addPurger({
    purgeDocuments: (ws, corpusId, rows) =>
      service.removeSections(
        corpusId,
        ws,
        rows.map((r) => r.id),
      ),
    purgeCorpus: async (ws, corpusId) => {
      await service.removeBase(corpusId)
      await p.queue.repo.deleteBySubject(ws, corpusId)
    },
  } satisfies DocumentPurger)
  // Once serving, not on the first question (the WordNet tables block the loop for about 200 ms):
  // on the next turn of the loop, so that start-up finishes first.
  let preparing: ReturnType<typeof setTimeout> | undefined
  return {
    name: 'engine',
    service,
    jobs: [encodeJob(service)],
    subscribers: [encodeSubscriber(p.queue, p.clock, service)],
    start: async ({ jobs }) => {
      preparing = setTimeout(() => void quiet.track(service.prepare()), 0)
      // Bases onboarded before the encoder was on, or left half encoded by a stopped process: the
      // engine's own read first, then corpora's and the queue's on the store.
      for (const corpusId of jobs ? service.encodings.basesWithoutEncodings() : []) {
        const ws = await d.corpora.workspaceOf(corpusId)
        if (ws) await queueEncode(p.queue, p.clock, service, ws, corpusId)
      }
    },
    stop: () => {
      clearTimeout(preparing)
      encoder?.close()
      quiet.close()
    },
  }
}
