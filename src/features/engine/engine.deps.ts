import type { Database } from 'bun:sqlite'
import type { Db } from '../../platform/db/db'
import type { Chunking, CompiledSection } from './cart/index'
import type { CartStore } from './engine.carts'
import type { SourceLocator } from './engine.citations'
import type { EncodingOptions } from './engine.encodings'
import type { SharedIndexDeps } from './engine.sync'
import type { Embedder } from './engine.vectors'
import type { EncoderEmbed } from './support/index'
import type { SynonymTable } from './text/index'

/** What the engine needs: the database, the object store, a warm-copy budget and a timer. */
export interface EngineDeps {
  db: Db | Database
  store: CartStore
  /**
   * Memory budget of the warm caches together, in bytes: cartridges, passage vectors and posting
   * lists share it (splitWarmBudget).
   */
  cacheBytes: number
  /** A monotonic millisecond timer for the latency in `metrics` (performance.now by default). */
  now?: () => number
  /**
   * Compiles a section's text elsewhere (CompileThreads): its encoded cartridge and index rows, and
   * the passages' vectors when the embedder is the built-in one. By default cartridges are compiled
   * in process. Either way the results are compileSection's.
   */
  compile?: (text: string) => Promise<CompiledSection>
  /** Starts the compile threads ahead of a run (CompileThreads.warm); nothing to start by default. */
  warmCompile?: () => void
  /** Chunks sections' texts for the index elsewhere (CompileThreads.index, `prefix` before each term); in process by default. */
  chunk?: (texts: string[], prefix: string) => Chunking
  /** Builds the synonym table elsewhere (CompileThreads.synonyms); here, on the event loop, by default. */
  synonyms?: () => Promise<SynonymTable>
  /**
   * The model that embeds passages for re-ranking candidates by meaning: an embeddings server (its
   * vectors come after onboarding, from embedSections) or the built-in vectors (made as passages are
   * indexed, embedNow); none when not given.
   */
  embedder?: Embedder | null
  /**
   * The built-in sentence encoder (EncoderThread.embed), for the support check, and how long a question
   * waits for it (EngineEncodings); none when not given (off, or beside an embeddings server).
   */
  encoder?: EncoderEmbed | null
  encoderWait?: EncodingOptions
  /**
   * Places cited passages in their documents (page, section, offsets); corpora's, given by the
   * feature. Without it sources carry no place.
   */
  locate?: SourceLocator | null
  /** One index for every replica (engine.sync.ts); each process's own when not given. */
  shared?: Omit<SharedIndexDeps, 'replaced'> | null
}
