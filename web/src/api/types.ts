/**
 * The wire shapes the console reads, by the names its pages use: each is the server's own schema
 * from the generated `openapi.gen.ts` (`npm run console:types`), never written by hand here.
 */
import type { components, operations } from './openapi.gen'

type Schemas = components['schemas']

// Accounts and sessions.
export type TokenResp = Schemas['TokenResp']
export type SessionResp = Schemas['SessionResp']
export type User = Schemas['UserResp']
/** What `/auth/me` answers: a user for a session, another shape for an API key. */
export type Me = Schemas['MeResp']
export type AuthConfig = Schemas['AuthConfigResp']
/** Where a verification, reset or invitation link went (or goes, in AuthConfig). */
export type LinkDelivery = AuthConfig['link_delivery']
export type LinkResp = Schemas['LinkResp']
export type InviteInfo = Schemas['InviteInfoResp']

// Enterprise identity: Google and single sign-on.
/** The address and provider a link ticket names. */
export type LinkInfo = Schemas['LinkAccountInfoResp']
/** Where a work address signs in (`authorization_url`). */
export type SsoStart = Schemas['SsoStartResp']
/** The workspace's SSO set-up; `recovery_codes` only in the answer that turned enforcement on. */
export type SsoSettings = Schemas['SsoSettingsResp']
export type SsoSettingsReq = Schemas['SsoSettingsReq']
/** The test's result, one entry a check. */
export type SsoCheck = Schemas['SsoCheckResp']

// Members, keys and the admin pages.
export type Member = Schemas['MemberResp']
export type Role = Member['role']
export type Invite = Schemas['InviteResp']
export type MembersResp = Schemas['MembersResp']
/** An API key as listed; the secret is never part of it. */
export type ApiKey = Schemas['ApiKeyResp']
/** The create answer: the only time the secret (`key`) is ever shown. */
export type ApiKeyCreated = Schemas['ApiKeyCreatedResp']
export type Scope = ApiKey['scopes'][number]
export type Usage = Schemas['UsageResp']
export type PlatformStatus = Schemas['StatusResp']
export type ComponentState = PlatformStatus['components'][number]['status']
export type Slo = Schemas['SloResp']
/** A base as agent catalogs see it, with its endpoints (paths). */
export type McpMeta = Schemas['McpMetaResp']

// Bases, their documents and onboarding.
/** A document base. */
export type Corpus = Schemas['CorpusResp']
/** A file of a base, or one of its sections (`parent_id` set). */
export type Doc = Schemas['DocumentResp']
/** An onboarding run (`train`), one of its batches (`train_batch`) or an `embed` job. */
export type Job = Schemas['JobResp']
/** A window of a document's text, with its PDF pages and its sections as ranges of the whole text. */
export type DocumentText = Schemas['DocumentTextView']
export type PageRange = Schemas['PageRange']
export type SectionRange = Schemas['SectionRange']

// Connections, sources, their runs and imports.
/** Workspace-level credentials for one kind of source; secrets never come back. */
export type Connection = Schemas['ConnectionResp']
export type ConnectionReq = Schemas['ConnectionReq']
/** A kind of source, and whether this workspace can use it (`GET /v1/source-kinds`). */
export type SourceKindState = Schemas['SourceKindsResp']['kinds'][number]
/** A sync run: of a source, an import, an upload or a push. */
export type SyncRun = Schemas['SyncRunResp']
/** A base kept in step with a folder through a connection. */
export type Source = Schemas['SourceResp']
export type SourceReq = Schemas['SourceReq']
/** The base's latest import; `state: none` before any. */
export type ImportStatus = Schemas['ImportStatusResp']

// Answers, comparisons and the scale test.
export type Strategy = Schemas['CompareStrategy']['key']
/** A passage an answer drew on. */
export type Passage = Schemas['Source']
/** The stream's `head`: how far the answer can be trusted, and its sources, before any text. */
export type ChatHead = Schemas['ChatHeadEvent']
/** The `done` event's figures, `fallback` and `fallback_reason` among them. */
export type Metrics = Schemas['Metrics']
/** One earlier turn of the conversation, sent so that a follow-up is condensed. */
export type Turn = Schemas['Turn']
export type FeedbackReq = Schemas['FeedbackReq']
export type CompareResp = Schemas['CompareResp']
/** One strategy's side of a comparison. */
export type CompareSide = Schemas['CompareStrategy']
export type Economics = Schemas['EconomicsResp']
/** Both strategies at one concurrency level of a scale test. */
export type LevelRecord = Schemas['LevelRecord']
export type ScaleStart = Schemas['ScaleStartEvent']
export type ScaleDone = Schemas['ScaleDoneEvent']
export type ScaleRun = Schemas['ScaleRunResp']

// Audit and security.
/** A row of the audit log, with its place in the workspace's hash chain. */
export type AuditEntry = Schemas['AuditEntryResp']
/** The chain's check: ok, rows checked, the first broken row. */
export type AuditVerify = Schemas['AuditVerifyResp']
/** The filters of the audit routes (all must hold). */
export type AuditFilters = Pick<
  NonNullable<operations['v1_get_v1_audit']['parameters']['query']>,
  'actor' | 'action' | 'target' | 'since' | 'until'
>
export type Allowlist = Schemas['IpAllowlistResp']
export type AllowlistReq = Schemas['IpAllowlistReq']
export type KmsKey = Schemas['KmsKeyResp']
export type KmsKeyReq = Schemas['KmsKeyReq']
