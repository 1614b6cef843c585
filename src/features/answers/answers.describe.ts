import type { Principal } from '../../platform/auth/principal'
import type { Clock } from '../../platform/clock/clock'
import type { LlmClient } from '../../platform/llm/openai-client'
import type { CorporaService, CorpusRow } from '../corpora/corpora.service'
import type { Engine, Source } from '../engine/engine.service'
import { completeSentences, describeFromSources, describeMessages } from './answers.text'

export interface DescribeDeps {
  clock: Clock
  corpora: CorporaService
  engine: Pick<Engine, 'ask'>
  llm: LlmClient | null
  /** Reports a model server failure (rate-limited) and says why the answer is extractive. */
  fallbackFor(e: unknown): string
}

/**
 * Writes the catalog description of a ready base: asked of the model from the passages that best
 * say what the base is about, or, without a model (or when it fails), composed from those passages
 * or, when none stands out, from the base's own document names. Stored on the base.
 */
export async function describeBase(
  d: DescribeDeps,
  principal: Principal,
  corpus: CorpusRow,
): Promise<{ id: string; description: string | null }> {
  const probe = await d.engine.ask(corpus.id, {
    question: `What is ${corpus.name} about? overview introduction summary`,
    k: 5,
    strategy: 'rag',
  })
  let description: string | null = null
  let modelAnswered = false
  if (d.llm && probe.sources.length > 0) {
    try {
      const text = await d.llm.complete({ messages: describeMessages(probe.sources), maxTokens: 120 })
      description = completeSentences(text)
      modelAnswered = true
    } catch (e) {
      d.fallbackFor(e)
    }
  }
  if (!modelAnswered) {
    const named = probe.sources.length > 0 ? probe.sources : await documentsAsSources(d, principal, corpus.id)
    description = describeFromSources(corpus.name, corpus.n_documents, named)
  }
  await d.corpora.setDescription(principal.workspaceId, corpus.id, description, d.clock.now().getTime())
  return { id: corpus.id, description }
}

/** The base's documents as sources with no passage: what names the base when no passage stands out. */
async function documentsAsSources(
  d: DescribeDeps,
  principal: Principal,
  corpusId: string,
): Promise<Source[]> {
  return (await d.corpora.documents(principal.workspaceId, corpusId, false, null)).items.map((doc) => ({
    id: doc.id,
    title: doc.title ?? doc.filename,
    documentId: doc.id,
    filename: doc.filename,
    snippet: '',
    score: 0,
  }))
}
