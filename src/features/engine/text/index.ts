// The text stage: words and their stems, sentences, chunks, WordNet's senses and synonyms, and the
// static word vectors; everything after it reads text through these.
// Code outside this folder imports only this file (tests/unit/engine-stages.test.ts).
export { type ChunkOptions, chunkSection, defaultChunkOptions } from './chunk'
export {
  answerKind,
  type HypernymTable,
  mostlyNoun,
  nounSense,
  prepareHypernyms,
  wordSense,
} from './hypernyms'
export { KindTest, kindTest } from './kind-test'
export { porterStem } from './porter'
export { type Span, splitParagraphs, splitSentences } from './sentences'
export {
  adoptStaticVectors,
  loadedStaticVectors,
  prepareStaticVectors,
  STATIC_MODEL,
  type StaticVectorTable,
  staticDims,
  staticVector,
  staticVectors,
  staticVectorTable,
} from './static-vectors'
export { packSynonyms, unpackSynonyms } from './synonym-pack'
export {
  contentTerms,
  ftsTerms,
  isStop,
  nextMark,
  normWord,
  scanWords,
  stem,
  stemOnce,
  type Token,
  termSlot,
  tokenize,
  UNSET,
  WH_WORDS,
  type WordInfo,
  wordCount,
} from './text'
export {
  adoptSynonyms,
  buildSynonyms,
  prepareSynonyms,
  type SynonymTable,
  synonymTable,
  variantsOf,
} from './variants'
export { WordTable } from './word-table'
export { FNV_OFFSET, FNV_PRIME, ftsTerm, wordCharAt, wordEnd } from './wordscan'
