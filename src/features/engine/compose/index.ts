// The compose stage: the answer from the ranked passages (its lead, short answer, tables, statements,
// stream) and the ask pipeline that runs every stage.
// Code outside this folder imports only this file (tests/unit/engine-stages.test.ts).
export { type Composed, composeAnswer } from './answer'
export { askBase, NO_ANSWER } from './ask'
export type { AskExplain, AskInput, AskMetrics, AskResult, Meaning, Source } from './ask-types'
export { definesSubject, definitional, definitionPhrase } from './definition'
export { leading, ledAnswer } from './lead'
export { leadWith, shortAnswer, shortWeights } from './short'
export { FEATURES, type Features, spanFeatures } from './short-features'
export { shortQuestion, Want } from './short-question'
export { candidateSpans } from './short-spans'
export { spanWords } from './short-words'
export { notAStatement, onlyAsked, withoutEndMarks } from './statement'
export { answerPieces, streamAnswer } from './stream'
export { answerFromTable } from './table-answer'
export { tableQuestion } from './table-question'
export { isRowsText, readTables, rowCells, type TablePassage } from './table-rows'
export { answerTable, inReadingOrder, TABLE_FILE, type TableDocument, type TableReader } from './tables'
