import type { Clock } from '../../platform/clock/clock'
import { constantTimeEqual } from '../../platform/crypto/hash'
import { base62, type Random } from '../../platform/crypto/random'
import type { QuestionOrigin } from '../../platform/events/events'
import type { PlansService, QueryTicket } from '../plans/plans.service'

/**
 * The request header that marks a question as measuring load, `scale_test` or `compare` (the scale
 * test's worker sends it with every query): usage counts such questions apart from people's. A
 * client can only move its own workspace's questions from one counter to the other with it.
 */
export const ORIGIN_HEADER = 'x-engram-origin'

/** Who asked, from the value of ORIGIN_HEADER: people unless it names measuring load. */
export function originOf(header: string | null): QuestionOrigin {
  return header === 'scale_test' || header === 'compare' ? header : 'person'
}

/**
 * How a question counts against the plan's `queries_per_month`: `take` one now (and give it back if
 * the question fails before it is answered), already `taken` by the caller (compare takes one for
 * its two answers), or `exempt` (the scale test's bounded load, the economics probe).
 */
export type Counted = 'take' | 'taken' | 'exempt'

/**
 * The request header that proves a question is the scale test's load, sent by its worker with the
 * origin header: `X-Engram-Origin: scale_test` alone only moves the question to the load counter in
 * `/admin/usage`; it still counts against the cap, or any client could ask past its plan.
 */
export const LOAD_PASS_HEADER = 'x-engram-load-pass'

/** The plans service's question allowance, as the answers feature takes it. */
export type QueryAllowance = Pick<PlansService, 'takeQuery' | 'releaseQuery'>

/** Takes questions from the workspace's month before they are answered, and knows the load pass. */
export class Allowance {
  /** A secret of this process, never sent outside it (the worker sends it to this server's own address). */
  private readonly pass: string

  constructor(private readonly d: { plans: QueryAllowance; clock: Clock; random: Random }) {
    this.pass = base62(d.random, 32)
  }

  /**
   * Takes one question (refusing with 403 `plan_limit_reached` past the cap) when `counted` is
   * `take`; answers the release to call when the question is not answered (idempotent; a no-op
   * for a question this call did not take).
   */
  async take(workspaceId: string, counted: Counted): Promise<() => Promise<void>> {
    if (counted !== 'take') return async () => {}
    let ticket: QueryTicket | null = await this.d.plans.takeQuery(workspaceId, this.d.clock.now().getTime())
    return async () => {
      const taken = ticket
      ticket = null
      if (taken) await this.d.plans.releaseQuery(taken)
    }
  }

  /** The pass the scale test's worker sends in LOAD_PASS_HEADER. */
  loadPass(): string {
    return this.pass
  }

  /** How a question that came over HTTP counts, from its headers: exempt only with the scale test's pass. */
  countedOf(headers: Headers): Counted {
    const pass = headers.get(LOAD_PASS_HEADER)
    const load = headers.get(ORIGIN_HEADER) === 'scale_test'
    return load && pass !== null && constantTimeEqual(pass, this.pass) ? 'exempt' : 'take'
  }
}
