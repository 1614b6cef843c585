import type { Principal } from '../auth/principal'
import type { PageRequest } from '../paging/paging'
import { isLoopback } from './loopback'
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
  private client: { ip: string; loopback: boolean } | undefined

  constructor(
    readonly request: Request,
    private readonly state: RequestState,
    readonly style: ApiStyle,
    private readonly trustProxy: boolean,
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

  get ip(): string {
    return this.clientOf().ip
  }

  get loopback(): boolean {
    return this.clientOf().loopback
  }

  /**
   * Where the request comes from. The socket peer, or with a trusted proxy the first
   * X-Forwarded-For address. A request handed to the app in process (tests, tools) has no socket:
   * it comes from this machine. `loopback` is true only for a loopback socket with no proxy
   * trusted: behind a proxy the socket is always the proxy, and the forwarded address is only the
   * proxy's word.
   */
  private clientOf(): { ip: string; loopback: boolean } {
    if (!this.client) {
      const peer = this.state.peer ?? '127.0.0.1'
      const forwarded = this.trustProxy
        ? this.request.headers.get('x-forwarded-for')?.split(',')[0]?.trim()
        : undefined
      this.client = { ip: forwarded || peer, loopback: !this.trustProxy && isLoopback(peer) }
    }
    return this.client
  }
}
