// What several parts of the engine share: a warm cache under a byte budget and a top-k heap.
// Code outside this folder imports only this file (tests/unit/engine-stages.test.ts).
export { WarmCache } from './cache'
export { TopHeap } from './top-heap'
