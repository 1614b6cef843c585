import type { Config } from '../../platform/config/config.load'
import { Sealer } from '../../platform/crypto/sealed'
import type { Feature, Platform } from '../../platform/feature/feature'
import { EgressGuard } from '../../platform/net/egress'
import type { CorporaService } from '../corpora/corpora.service'
import type { IngestService } from '../ingest/ingest.service'
import { connectorKinds } from './connectors/kinds'
import { s3Setup } from './s3-setup'
import { Connections } from './sources.connections'
import { connectionRoutes } from './sources.connections.routes'
import { Imports } from './sources.imports'
import { importRoutes } from './sources.imports.routes'
import { SourcesRepo } from './sources.repo'
import { sourcesRoutes } from './sources.routes'
import { SourcesService } from './sources.service'
import { storageRoutes } from './sources.storage.routes'
import { syncJob } from './sources.sync-job'
import { UploadCredentialsService } from './upload-credentials'

export interface SourcesFeatureDeps {
  /** Its own section; `storage` (upload credentials are issued for its bucket); ingest's file size cap. */
  config: Pick<Config, 'sources' | 'storage' | 'ingest'>
  /** The instance secret: connection secrets are sealed under a key derived from it. */
  secret: string
  corpora: CorporaService
  ingest: IngestService
}

/** Connections, sources (a base in step with a folder elsewhere), imports, and the sync job. */
export function sourcesFeature(
  p: Platform,
  { config, ...deps }: SourcesFeatureDeps,
): Feature<SourcesService> {
  const d = {
    ...p,
    ...deps,
    config: config.sources,
    storage: config.storage,
    maxFileBytes: config.ingest.max_file_bytes,
  }
  const repo = new SourcesRepo(d.store)
  const kinds = connectorKinds()
  const guard = new EgressGuard({
    denyPrivateNetworks: d.config.deny_private_networks,
    allowLoopback: d.config.allow_loopback,
  })
  const env = {
    config: d.config,
    fetch: guard.fetch,
    checkHost: (u: string) => guard.check(u),
    clock: d.clock,
    log: d.log,
  }
  const connections = new Connections({
    repo,
    kinds,
    sealer: new Sealer(d.secret, 'engram/sources/credentials'),
    clock: d.clock,
    random: d.random,
    checkHost: env.checkHost,
    store: d.store,
    events: d.events,
  })
  const syncDeps = { ...d, repo, connections, kinds, env }
  const service = new SourcesService(syncDeps)
  const imports = new Imports(syncDeps, service)
  return {
    name: 'sources',
    service,
    routes: [
      ...sourcesRoutes(service, d.clock),
      ...connectionRoutes(service),
      ...importRoutes(imports),
      ...storageRoutes({
        uploadCredentials: new UploadCredentialsService(d.storage, {
          ...(d.storage.s3_sts_endpoint ? { stsEndpoint: d.storage.s3_sts_endpoint } : {}),
          ...(d.storage.s3_role_arn ? { roleArn: d.storage.s3_role_arn } : {}),
        }),
        setup: () => s3Setup(d.storage),
        corporaExists: (ws, id) => d.corpora.exists(ws, id),
      }),
    ],
    jobs: [syncJob(syncDeps)],
  }
}
