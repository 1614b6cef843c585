// The rank stage: a question's plan (its terms, kinds and answer type, condensed from a conversation
// and respelled), the scores, and what ranking stores and counts of passages (their words, BM25's counts).
// Code outside this folder imports only this file (tests/unit/engine-stages.test.ts).
export { condenseQuestion, keyPhrase, type Turn } from './condense'
export { ascending, byScore, descending } from './order'
export { decodePassageWords, encodePassageWords, scanPassageWords, TermTags, termHash } from './passage-words'
export {
  AnswerType,
  answerType,
  planQuery,
  type QueryPlan,
  TokenKind,
  termOf,
  tokenKind,
  wordKind,
} from './query'
export {
  boundable,
  pairSet,
  passageScore,
  type RankedPassage,
  type RankedSentence,
  scoreBound,
  sectionPrior,
  sentenceBound,
  TopK,
  termWeights,
  withDocumentPrior,
  withDocumentTerms,
  withMeaning,
  withTermFrequency,
} from './rank'
export {
  defaultWeights,
  featureScoresOf,
  idf,
  type ScoreWeights,
  scored,
  scoreSentence,
  sentenceScores,
  sentenceScoresOf,
} from './score'
export { type SequenceFeatures, sequenced, sequenceFeatures, sequenceFeaturesOf, WINDOW } from './sequence'
export { respellPlan } from './spell'
export { TermCounts } from './term-counts'
