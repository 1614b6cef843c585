import type { Static } from '@sinclair/typebox'
import type { Config } from '../../platform/config/config.load'
import type { IngestService } from '../ingest/ingest.service'
import { erasureTimeline } from './platform-info.erasure'
import type { PlatformInfoResp } from './platform-info.schemas'

export type PlatformInfoConfig = Pick<
  Config,
  'storage' | 'llm' | 'embed' | 'email' | 'billing' | 'ingest' | 'sources' | 'api' | 'engine'
>

type Info = Static<typeof PlatformInfoResp>

/**
 * What anyone may know about this server before signing in (`GET /v1/platform/info`): where it
 * stores documents, what it may send elsewhere, and what files it reads. Built once: it depends on
 * configuration only. No address, key or host name of any destination is shown.
 */
export class PlatformInfoService {
  private readonly info: Info
  private readonly timeline: ReturnType<typeof erasureTimeline>

  constructor(config: PlatformInfoConfig, version: string, ingest: Pick<IngestService, 'acceptedTypes'>) {
    this.timeline = erasureTimeline(config)
    const s3 = config.storage.driver === 's3'
    const destinations = [
      {
        name: 'object store',
        purpose: 'Raw files, their extracted text and the compiled cartridges of every base.',
        configured: s3,
      },
      {
        name: 'model server',
        purpose: 'A question and the passages that answer it.',
        configured: !!config.llm.url,
      },
      {
        name: 'embeddings server',
        purpose: 'Passages and questions, to be embedded.',
        configured: !!config.embed.url,
      },
      {
        name: 'email (SMTP)',
        purpose: 'Verification, password reset and invitation messages.',
        configured: config.email.transport !== 'disabled',
      },
      {
        name: 'document sources',
        // Not the operator's to configure: only a workspace that connects a source makes the server reach it.
        purpose: `Only when a workspace connects one: listing and reading the buckets, Drive folders and SharePoint libraries a workspace connects, and only those. Link-local and cloud metadata addresses are always refused; this server's own addresses (loopback and its interfaces) are ${config.sources.allow_loopback && !config.sources.deny_private_networks ? 'allowed by the operator' : 'refused'}; private networks are ${config.sources.deny_private_networks ? 'refused too' : 'allowed (on-premises stores live there)'}. Server folders are read only under the folders the operator granted to each workspace.`,
        configured: false,
      },
      {
        name: 'billing provider',
        purpose: 'Plan and payment events.',
        configured: config.billing.mode !== 'off',
      },
    ]
    this.info = {
      version,
      storage: s3 ? 's3' : 'local',
      region: s3 ? config.storage.s3_region : null,
      egress: {
        summary:
          'This server connects out only to the destinations marked configured below, and sends nothing ' +
          'else anywhere: no telemetry, no update checks. With none configured it works without a network.',
        destinations,
      },
      accepted_file_types: ingest.acceptedTypes().map((t) => ({
        kind: t.kind,
        content_type: t.contentType,
        extensions: t.extensions,
      })),
      limits: {
        max_file_bytes: config.ingest.max_file_bytes,
        max_files_per_request: config.ingest.max_files_per_request,
        max_request_bytes: config.ingest.max_request_bytes,
        max_manifest_files: config.ingest.max_manifest_files,
        max_json_bytes: config.ingest.max_json_bytes,
      },
    }
  }

  get(): Info {
    return this.info
  }

  /** `GET /platform/erasure-timeline`: what a deletion does to each kind of data, for this configuration. */
  erasureTimeline(): ReturnType<typeof erasureTimeline> {
    return this.timeline
  }
}
