import type { TableAnswer } from './tables'

/**
 * The result of a question answered from a table (an AskResult, checked where askBase returns it;
 * this file does not import ask.ts, which imports it): its cited passages are its sources.
 */
export function tableResult(
  table: TableAnswer,
  strategy: 'cart' | 'rag',
  k: number,
  condensed: string,
  t0: number,
  now: () => number,
) {
  const sources = table.cited.map(({ passage, document }) => ({
    id: `${passage.sectionId}:${passage.ordinal}`,
    title: passage.title,
    documentId: document.documentId,
    filename: document.filename,
    snippet: passage.text,
    score: 1,
  }))
  const ms = round(now() - t0)
  return {
    answer: table.answer,
    shortAnswer: table.short,
    answered: true,
    strategy,
    usedDocs: [...new Set(sources.map((s) => s.documentId))],
    sources,
    condensedQuestion: condensed,
    computed: true,
    // Computed from the rows it cites: support is not in question.
    metrics: { latencyMs: ms, retrievalMs: ms, strategy, k, support: 1 },
  }
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000
}
