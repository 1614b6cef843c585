import { describe, expect, test } from 'bun:test'
import { formatAnswer } from '../../../src/features/mcp/lib/format'
import type { McpAnswer } from '../../../src/features/mcp/mcp.schemas'

/** An answer citing one passage of `filename`, on `page` (null: a document without pages). */
function answer(filename: string, page: number | null): McpAnswer {
  return {
    answer: 'Existing models are developed using TensorFlow or PyTorch [1].',
    short_answer: null,
    answered: true,
    strategy: 'cart',
    condensed_q: 'Which frameworks are models developed with?',
    metrics: { latency_ms: 3, strategy: 'cart' },
    used_docs: ['doc_1'],
    sources: [
      {
        id: 'doc_1',
        passage_id: 'doc_1:0',
        title: 'LayoutParser',
        document_id: 'doc_1',
        filename,
        snippet: 'Existing models are developed using distinct frameworks like TensorFlow or PyTorch.',
        score: 1,
        page,
        section_title: null,
        start: 0,
        end: 80,
      },
    ],
  }
}

describe('the MCP answer as text', () => {
  test("a PDF passage's source line names its page, as the console's citation does", () => {
    expect(formatAnswer(answer('paper.pdf', 2))).toContain('\n[1] paper.pdf, page 2 — Existing models')
  })

  test('a document without pages is named by its file alone', () => {
    expect(formatAnswer(answer('notes.txt', null))).toContain('\n[1] notes.txt — Existing models')
  })
})
