// The API's shapes the console reads (snake_case, as on the wire; /openapi.json is the reference).

/** Where a verification, reset or invitation link went (or goes, in AuthConfig). */
export type LinkDelivery = 'email' | 'response' | 'server_log'

export interface TokenResp {
  access_token: string
  token_type: 'bearer'
  expires_at: string | null
  email_verified: boolean
  verify_link?: string
  link_delivery?: LinkDelivery
}

export interface SessionResp {
  access_token: string
  expires_at: string
  refreshed: boolean
  session_class: 'normal' | 'remember'
}

export interface User {
  id: string
  email: string
  name: string
  workspace_id: string
  workspace_name: string
  role: 'admin' | 'member'
  email_verified: boolean
}

export interface AuthConfig {
  signup_mode: 'open' | 'invite'
  registration_enabled: boolean
  first_run: boolean
  resend_cooldown_seconds: number
  billing_enabled: boolean
  default_plan: string
  email_enabled: boolean
  link_delivery: LinkDelivery
  google_enabled: boolean
  sso_enabled: boolean
}

export interface LinkResp {
  status: string
  invite_link?: string
  reset_link?: string
  verify_link?: string
  link_delivery?: LinkDelivery
}

/** A page of a `/v1` list route. */
export interface Page<T> {
  items: T[]
  next_cursor: string | null
}
