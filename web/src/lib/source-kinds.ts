/**
 * The kinds of source the console can connect, with their connection fields, as the API takes
 * them (`POST /v1/connections`: each kind's settings and secrets, described in /openapi.json).
 * Forms are built from this list: a new kind is a new entry here. Secret fields go to `secrets`,
 * are typed into password inputs and are never shown back (the API says only which ones are set).
 */

/** One connection field of a kind. */
export interface KindField {
  name: string
  label: string
  /** Stored encrypted and write-only: a password input, sent in `secrets`. */
  secret?: boolean
  /** `text` (the default), a multi-line secret (`multiline`), a yes/no (`checkbox`) or a choice (`select`). */
  input?: 'text' | 'multiline' | 'checkbox' | 'select'
  options?: { value: string; label: string }[]
  required?: boolean
  hint?: string
  placeholder?: string
  /** The field applies only when the other settings make this true (Drive's two ways to sign in). */
  when?: (settings: Record<string, string | boolean>) => boolean
}

/** A kind of source: its name, what its folder is, and its connection fields. */
export interface SourceKindInfo {
  kind: string
  label: string
  folderLabel: string
  folderHint: string
  folderPlaceholder?: string
  fields: KindField[]
}

const serviceAccount = (s: Record<string, string | boolean>) => s.auth !== 'oauth'
const oauth = (s: Record<string, string | boolean>) => s.auth === 'oauth'

export const SOURCE_KINDS: SourceKindInfo[] = [
  {
    kind: 'folder',
    label: 'Server folder',
    folderLabel: 'Folder on the server',
    folderHint:
      'An absolute path inside a folder the operator granted to this workspace (sources.folder_roots).',
    folderPlaceholder: '/srv/shares/handbook',
    fields: [],
  },
  {
    kind: 's3',
    label: 'S3 bucket',
    folderLabel: 'Key prefix',
    folderHint: 'Only keys under this prefix are synced; leave empty for the whole bucket.',
    folderPlaceholder: 'handbook/',
    fields: [
      {
        name: 'endpoint',
        label: 'Endpoint',
        required: true,
        placeholder: 'https://host:9000',
        hint: 'Scheme, host and port of the S3 API (AWS, MinIO, Ceph, ...).',
      },
      { name: 'bucket', label: 'Bucket', required: true },
      { name: 'region', label: 'Region', placeholder: 'us-east-1' },
      {
        name: 'path_style',
        label: 'Path-style addressing (https://host/bucket/key)',
        input: 'checkbox',
      },
      { name: 'access_key', label: 'Access key id', secret: true, required: true },
      { name: 'secret_key', label: 'Secret access key', secret: true, required: true },
      {
        name: 'session_token',
        label: 'Session token',
        secret: true,
        hint: 'Only for temporary (STS) credentials.',
      },
    ],
  },
  {
    kind: 'gdrive',
    label: 'Google Drive folder',
    folderLabel: 'Drive folder id',
    folderHint: 'The id at the end of the folder’s address: drive.google.com/drive/folders/<id>.',
    fields: [
      {
        name: 'auth',
        label: 'Sign in with',
        input: 'select',
        required: true,
        options: [
          { value: 'service_account', label: 'A service account key' },
          { value: 'oauth', label: 'An OAuth client and refresh token' },
        ],
      },
      {
        name: 'client_email',
        label: 'Service account email',
        required: true,
        when: serviceAccount,
        hint: 'Share the folder with this address.',
      },
      {
        name: 'private_key',
        label: 'Private key (PEM)',
        secret: true,
        input: 'multiline',
        required: true,
        when: serviceAccount,
      },
      { name: 'client_id', label: 'OAuth client id', required: true, when: oauth },
      { name: 'client_secret', label: 'OAuth client secret', secret: true, required: true, when: oauth },
      { name: 'refresh_token', label: 'Refresh token', secret: true, required: true, when: oauth },
      {
        name: 'shared_drive_id',
        label: 'Shared drive id',
        hint: 'Only for a folder in a shared drive.',
      },
    ],
  },
  {
    kind: 'sharepoint',
    label: 'SharePoint library',
    folderLabel: 'Folder in the library',
    folderHint: 'A path in the document library, such as Policies/2026; leave empty for all of it.',
    fields: [
      { name: 'tenant_id', label: 'Tenant id', required: true, hint: 'The directory’s GUID or domain.' },
      { name: 'client_id', label: 'Application (client) id', required: true },
      { name: 'drive_id', label: 'Library (drive) id', hint: 'Give this or the site id.' },
      { name: 'site_id', label: 'Site id', hint: 'Its default library is read.' },
      { name: 'client_secret', label: 'Client secret', secret: true, required: true },
    ],
  },
]

/** What a kind is called in the console (the API's word when it is not listed). */
export function kindLabel(kind: string): string {
  return SOURCE_KINDS.find((k) => k.kind === kind)?.label ?? kind
}

/** A kind's description, or the server folder's when the kind is not listed. */
export function kindInfo(kind: string): SourceKindInfo {
  return SOURCE_KINDS.find((k) => k.kind === kind) ?? SOURCE_KINDS[0]!
}
