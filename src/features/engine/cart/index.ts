// The cart stage: cartridges, compiled (in threads), encoded, fitted, routed and searched.
// Code outside this folder imports only this file (tests/unit/engine-stages.test.ts).
export { BoundQueue } from './boundqueue'
export { releaseReach, routeReach, scanReach } from './cartreach'
export { compileCartridge, localId, localTerm, type WarmCartridge } from './cartridge'
export { type CartRoute, routeCartridges, routeDf, routeKnownTerms, routeRow, routeSize } from './cartroute'
export { type CartEntry, cartEntry, searchCartridges } from './cartsearch'
export { CARTRIDGE_VERSION, cartridgeText, contentKey, decodeCartridge, encodeCartridge } from './codec'
export {
  type CompiledSection,
  type CompileReply,
  type CompileRequest,
  compileSection,
} from './compile-messages'
export { CompileThreads, type CompileWorker, compileWorkerPath } from './compile-threads'
export { fitCartridge, landsOn, selfTest } from './fit'
export {
  type Chunking,
  type IndexedSection,
  indexSection,
  type PackedSections,
  packSections,
  unpackSections,
} from './index-section'
export { type PassageInput, passageInputs, passageTerms, sectionPassages } from './passages'
export { synthesize } from './synth'
export { internTerm, lookupTerm } from './terms'
