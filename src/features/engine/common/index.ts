// What several parts of the engine share: a warm cache under a byte budget, the warm caches' budget
// (from the machine and the configuration), a top-k heap, and the memory given back after work (the
// executable's embedded pages once read, a hook run when a burst of work has gone quiet).
// Code outside this folder imports only this file (tests/unit/engine-stages.test.ts).
export {
  AUTO_MAX_BYTES,
  AUTO_MIN_BYTES,
  heapRamBytes,
  machineMemoryBytes,
  splitWarmBudget,
  type WarmBudgets,
  warmBudgets,
} from './budget'
export { WarmCache } from './cache'
export {
  cleanRuns,
  elfSection,
  type FileRange,
  mappedAt,
  releaseCleanPages,
  releaseEmbeddedPages,
} from './embedded-pages'
export { QuietHook, type QuietOptions } from './quiet'
export { TopHeap } from './top-heap'
