import type { Subscriber } from '../../platform/events/dispatcher'
import type { UsageService } from './usage.service'

/**
 * Counts answered questions per workspace, base and day from `question.answered`, by who asked
 * (people, or the scale test's and compare's load). Inline: the count commits with the event, in
 * the unit that writes it (a quiet one: answers.repo.ts), so it is counted exactly once and the event has no delivery to
 * make (a counter does not depend on the order of the workspace's events). The day is the event's
 * (when the question was answered).
 */
export function usageSubscriber(usage: UsageService): Subscriber<'question.answered'> {
  return {
    name: 'usage.queries',
    types: ['question.answered'],
    transactional: true,
    inline: true,
    handle: (e) =>
      usage.recordQueries(e.workspaceId, e.payload.corpusId, 1, e.occurredAt, e.payload.origin ?? 'person'),
  }
}
