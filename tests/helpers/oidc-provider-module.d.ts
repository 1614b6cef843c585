// oidc-provider ships no types (and @types/oidc-provider is not installed): the little of it the
// test provider (tests/helpers/oidc-provider.ts) uses, typed by hand.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  interface Grant {
    addOIDCScope(scope: string): void
    save(): Promise<string>
  }
  interface KoaContextWithOIDC {
    oidc: {
      provider: Provider
      client?: { clientId: string }
      session?: { accountId?: string }
    }
  }
  interface Account {
    accountId: string
    claims(): Record<string, unknown> | Promise<Record<string, unknown>>
  }
  interface Configuration {
    clients?: Record<string, unknown>[]
    jwks?: { keys: Record<string, unknown>[] }
    cookies?: { keys?: string[] }
    conformIdTokenClaims?: boolean
    claims?: Record<string, string[]>
    features?: Record<string, unknown>
    interactions?: { url?(ctx: KoaContextWithOIDC, interaction: { uid: string }): string }
    findAccount?(ctx: KoaContextWithOIDC, id: string): Promise<Account | undefined>
    loadExistingGrant?(ctx: KoaContextWithOIDC): Promise<Grant | undefined>
    ttl?: Record<string, number>
  }
  class Provider {
    constructor(issuer: string, configuration?: Configuration)
    proxy: boolean
    Grant: new (init: {
      clientId: string
      accountId: string
    }) => Grant
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>
  }
  export default Provider
}
