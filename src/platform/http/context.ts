import type { Principal } from '../auth/principal'
import type { PageRequest } from '../paging/paging'
import type { ClientAddresses } from './client-address'
import type { RequestState } from './request-state'
import type { ApiStyle, AuthRequirement, RouteContext } from './route'

/**
 * What a handler receives (`RouteContext`). The parsed URL and the client's address are worked out
 * when a handler first reads them, not on every request: most handlers read neither, and both
 * cost more than the rest of the context together (Bun builds an address object on every lookup).
 */
export class HandlerContext implements RouteContext<unknown, unknown, unknown, AuthRequirement> {
  body: unknown = undefined
  private parsedUrl: URL | undefined
  private client: string | undefined

  constructor(
    readonly request: Request,
    private readonly state: RequestState,
    readonly style: ApiStyle,
    private readonly clients: ClientAddresses,
    readonly principal: Principal | null,
    readonly query: unknown,
    readonly params: unknown,
    readonly page: PageRequest | null,
  ) {}

  get requestId(): string {
    return this.state.requestId
  }

  get url(): URL {
    if (!this.parsedUrl) this.parsedUrl = new URL(this.request.url)
    return this.parsedUrl
  }

  /**
   * The client's address: the socket peer, or behind a trusted proxy the address it reports
   * (`ClientAddresses.resolve`). A request handed to the app in process has no socket: this machine.
   */
  get ip(): string {
    if (this.client === undefined) this.client = this.clients.resolve(this.state.peer, this.request.headers)
    return this.client
  }
}
