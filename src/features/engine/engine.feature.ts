import type { Config } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { DocumentPurger } from '../corpora/corpora.service'
import { BUILTIN_MODEL, embedderFrom, encoderFrom } from './embedder'
import { Engine } from './engine.service'
import { CompileThreads } from './lib/compile-threads'

export interface EngineFeatureDeps extends Platform {
  config: Config['engine']
  embed: Config['embed']
}

/**
 * The answer engine: search indexes, cartridges, extractive answers. No routes: answers,
 * onboarding and economics use it through its service. Cartridges compile on threads when
 * `engine.compile_threads` says so, and in process if a thread fails. The built-in sentence
 * encoder runs on a thread of its own, started by the first question it is asked about.
 */
export function engineFeature(d: EngineFeatureDeps): Feature<Engine> & { purger: DocumentPurger } {
  const embedder = embedderFrom(d.embed, d.clock, d.log)
  const threads = d.config.compile_threads
  const compiler =
    threads > 0
      ? new CompileThreads({
          threads,
          staticVectors: embedder?.model === BUILTIN_MODEL,
          onFallback: (reason) =>
            d.log.warn('cartridges now compile in process: a compile thread failed', { reason }),
        })
      : null
  const encoder = encoderFrom(d.embed, d.log)
  const service = new Engine({
    db: d.db,
    store: d.objects,
    cacheBytes: d.config.warm_cache_mb * 1024 * 1024,
    compile: compiler ? (text) => compiler.compile(text) : undefined,
    warmCompile: compiler ? () => compiler.warm() : undefined,
    embedder,
    encoder: encoder ? (texts) => encoder.embed(texts) : null,
  })
  // Deleted documents leave the index and the cartridges (warm copy first) before the delete
  // answers, so no answer cites them afterwards; a deleted base also drops its queued jobs.
  const purger: DocumentPurger = {
    purgeDocuments: async (_ws, _corpusId, rows) => {
      for (const r of rows) await service.removeSection(r.id)
    },
    purgeCorpus: async (ws, corpusId) => {
      await service.removeBase(corpusId)
      d.queue.deleteBySubject(ws, corpusId)
    },
  }
  return { service, purger }
}
