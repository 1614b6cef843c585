import type { Static, TSchema } from '@sinclair/typebox'
import type { Principal, Scope } from '../auth/principal'
import type { ErrorCode } from '../errors/errors'
import type { PageRequest } from '../paging/paging'

/** Who may call a route: anyone, any valid credential, or a workspace admin. */
export type AuthRequirement = 'none' | 'bearer' | 'admin'

/** Where a route is mounted: at `/v1<path>` and `<path>` (default), or at one of them only. */
export type Mount = 'both' | 'v1' | 'unversioned'

/** The API surface a request came through; it decides error and list shapes. */
export type ApiStyle = 'v1' | 'frozen'

/** How a route's body is read. `stream` leaves the body to the handler (uploads). */
export type BodyKind = 'json' | 'form' | 'stream'

/** Everything a handler sees about its request. */
export interface RouteContext<B, Q, P, A extends AuthRequirement> {
  request: Request
  url: URL
  requestId: string
  style: ApiStyle
  /** The client's address: the socket peer, or what a trusted proxy reports (client-address.ts). */
  ip: string
  body: B
  query: Q
  params: P
  principal: A extends 'none' ? Principal | null : Principal
  /** Paging window on `/v1` list routes; null on the frozen mount (whole list). */
  page: PageRequest | null
}

/** A reply with an explicit status and headers. */
export class Reply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {}
}

/** Answers with a status other than 200, or with extra headers. */
export function reply(status: number, body?: unknown, headers?: Record<string, string>): Reply {
  return new Reply(status, body, headers)
}

type Infer<S> = S extends TSchema ? Static<S> : undefined

/** A route, defined once: schemas, auth, scope, docs and handler together. */
export interface RouteDef<
  B extends TSchema | undefined = TSchema | undefined,
  Q extends TSchema | undefined = TSchema | undefined,
  P extends TSchema | undefined = TSchema | undefined,
  A extends AuthRequirement = AuthRequirement,
> {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  /** Path with `:param` segments, without the `/v1` prefix. */
  path: string
  mount?: Mount
  auth: A
  /** The API-key scope this route needs (spec, Authentication); checked for keys only. */
  scope?: Scope
  /**
   * What a key bound to some bases may do here, when the path names no base (`:corpus_id`): by
   * default nothing (403 `key_bound_to_bases`), since such a route acts on the whole workspace.
   * `'served'`: the route shows only the key's bases, or none at all (a base's path names its own).
   */
  boundKeys?: 'served'
  summary: string
  tags: string[]
  description?: string
  body?: B
  bodyKind?: BodyKind
  /**
   * A check run after authentication (and the bound-key check), before the body is read and
   * validated: a refusal that must come first whatever the body holds (billing's legal acceptance
   * and its 503 when off). It throws an `ApiError` to refuse; the handler still re-checks what it
   * relies on. It may answer a promise (a check that reads the database).
   */
  precondition?: (ctx: { request: Request; principal: Principal | null }) => void | Promise<void>
  /** Body size cap for this route; defaults to `server.max_body_bytes`. */
  maxBodyBytes?: number
  query?: Q
  params?: P
  /** Success status; 200 by default. */
  status?: number
  /** Response schema (for lists, the item schema). */
  response?: TSchema
  /** Not part of the API (the console's pages): served, but left out of the OpenAPI document. */
  hidden?: boolean
  /** Content type of a non-JSON response, for the OpenAPI document. */
  produces?: string
  /** A `text/event-stream` route: each event name, in stream order, with the schema of its data. */
  events?: Record<string, TSchema>
  /**
   * Error codes the route answers beyond those its auth, inputs and body imply (those are
   * documented for every route); for the OpenAPI document.
   */
  errors?: ErrorCode[]
  /** A list route: `/v1` answers a page, the frozen mount the whole array. */
  list?: boolean
  /**
   * How the route takes `Idempotency-Key` (`idempotencyOf`): `true` replays the first answer (the
   * default for POST, PUT and DELETE with a JSON or form body); `'once'` for an answer carrying a
   * secret, which is never stored: the request runs once per key and a reuse is refused; `false`
   * ignores the key (streams).
   */
  idempotent?: boolean | 'once'
  handler: (ctx: RouteContext<Infer<B>, Infer<Q>, Infer<P>, A>) => unknown | Promise<unknown>
}

/**
 * What an `Idempotency-Key` does on a route: `replay` the stored first answer, run the request
 * `once` and refuse a reuse (its answer carries a secret that is not stored), or nothing (`off`).
 */
export function idempotencyOf(route: RouteDef): 'replay' | 'once' | 'off' {
  if (route.idempotent === 'once') return 'once'
  const byDefault = ['POST', 'PUT', 'DELETE'].includes(route.method) && route.bodyKind !== 'stream'
  return (route.idempotent ?? byDefault) ? 'replay' : 'off'
}

/** Declares a route with full type inference of body, query, params and principal. */
export function defineRoute<
  B extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
  P extends TSchema | undefined = undefined,
  A extends AuthRequirement = AuthRequirement,
>(def: RouteDef<B, Q, P, A>): RouteDef {
  return def as unknown as RouteDef
}
