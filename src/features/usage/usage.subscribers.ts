import type { Subscriber } from '../../platform/events/dispatcher'
import type { UsageService } from './usage.service'

/**
 * Counts answered questions per workspace, base and day from `question.answered`, by who asked
 * (people, or the scale test's and compare's load). Transactional: the count and the delivery
 * record commit together, so a redelivered event is not counted twice. The day is the event's
 * (when the question was answered), not the delivery's.
 */
export function usageSubscriber(usage: UsageService): Subscriber<'question.answered'> {
  return {
    name: 'usage.queries',
    types: ['question.answered'],
    transactional: true,
    handle: (e) =>
      usage.recordQueries(e.workspaceId, e.payload.corpusId, 1, e.occurredAt, e.payload.origin ?? 'person'),
  }
}
