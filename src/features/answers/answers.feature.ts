import { Gate } from '../../platform/concurrency/gate'
import type { Config } from '../../platform/config/config.load'
import type { Feature, Platform } from '../../platform/feature/feature'
import { createLlmClient } from '../../platform/llm/openai-client'
import type { CorporaService } from '../corpora/corpora.service'
import type { Engine } from '../engine/engine.service'
import type { PlansService } from '../plans/plans.service'
import { answersRoutes } from './answers.routes'
import { AnswersService } from './answers.service'

export interface AnswersFeatureDeps {
  llm: Config['llm']
  engineLimits: Pick<Config['engine'], 'max_concurrent' | 'max_queued'>
  corpora: CorporaService
  /** Questions are held to the workspace's plan (queries per month). */
  plans: PlansService
  engine: Engine
}

/**
 * Chat with sources, streamed or whole: the engine's extractive answer, or a model's when a model
 * server is configured (falling back to the extractive one unless `llm.strict`). Questions beyond
 * `engine.max_concurrent` wait in a bounded queue, then get 503.
 */
export function answersFeature(p: Platform, d: AnswersFeatureDeps): Feature<AnswersService> {
  const llm = d.llm.url
    ? createLlmClient({
        url: d.llm.url,
        model: d.llm.model ?? 'default',
        apiKey: d.llm.api_key,
        timeoutMs: d.llm.timeout_ms,
      })
    : null
  const service = new AnswersService({
    ...p,
    ...d,
    llm,
    strict: d.llm.strict,
    gate: new Gate(d.engineLimits.max_concurrent, d.engineLimits.max_queued),
  })
  return { name: 'answers', service, routes: answersRoutes(service) }
}
