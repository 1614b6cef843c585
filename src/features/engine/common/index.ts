// What several parts of the engine share: a warm cache under a byte budget, the warm caches' budget
// (from the machine and the configuration), and a top-k heap.
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
export { TopHeap } from './top-heap'
