// The support stage: whether the passages found support an answer, by words and vectors, and the
// built-in encoder's check (its thread and worker).
// Code outside this folder imports only this file (tests/unit/engine-stages.test.ts).
export {
  ENCODER_BAND,
  ENCODER_MAX_CHARS,
  ENCODER_REFERENCES,
  EncoderCache,
  type EncoderEmbed,
  encoderSignals,
  unsure,
} from './encoder-check'
export {
  BULK_IDLE_MS,
  type EncoderReply,
  type EncoderRequest,
  EncoderThread,
  type EncoderWorker,
} from './encoder-thread'
export {
  type CheckedPassage,
  dequantize,
  ENCODE_BATCH,
  ENCODER_START_WAIT_MS,
  EncoderCheck,
  type EncoderCheckOptions,
  type EncoderCheckStats,
  encodePassages,
  quantize,
  type SupportEncoder,
} from './encodings'
export { passageVector, passageVectorsHeld } from './passage-vectors'
export {
  modelSignal,
  pastReference,
  REFERENCE_PAIRS,
  REFERENCE_SENTENCES,
  REFERENCE_TEXTS,
  type References,
  referencesOf,
} from './reference'
export {
  cosine,
  EMBEDDED_SCALE,
  SUPPORT_PASSAGES,
  SUPPORT_THRESHOLD,
  type SupportSignals,
  supportQuestion,
  supportScore,
  supportSignals,
  type TermEvidence,
} from './support'
export { MAX_PIECES, UseLite, type UseLiteWeights } from './use-lite'
export {
  assetWeights,
  int8Asset,
  loadUseLite,
  packageWeights,
  quantizeRows,
  type UseLitePackage,
} from './use-lite-files'
export { type KernelMatrix, kernelMemory } from './use-lite-kernel'
export { fileSlices, type ReadBytes, readAssetWeights, readUseLite } from './use-lite-read'
export { denseInScript } from './use-lite-script'
export { PieceTokenizer, type Vocabulary } from './use-lite-tokens'
