import type { Config } from '../../platform/config/config.load'
import { Sealer } from '../../platform/crypto/sealed'
import type { Subscriber } from '../../platform/events/dispatcher'
import type { Feature, Platform } from '../../platform/feature/feature'
import type { EnvelopeStore } from '../../platform/storage/envelope-store'
import type { CorporaService } from '../corpora/corpora.service'
import type { WorkspacesService } from '../workspaces/workspaces.service'
import { AwsKeys } from './kms.aws'
import { KmsKeyring } from './kms.keyring'
import { LocalKeys } from './kms.local'
import { runPass } from './kms.pass'
import { KmsRepo } from './kms.repo'
import { kmsRoutes } from './kms.routes'
import { KmsService, PASS_JOB } from './kms.service'
import { sealUploadsSubscriber } from './kms.subscribers'

export interface KmsFeatureDeps {
  config: Config['kms']
  /** The server secret: local keys are sealed under it. */
  secret: string
  /** The object store every feature is given; the keyring is installed into it here. */
  envelope: EnvelopeStore
  /** New documents' original files, sealed if they reached the bucket plain (kms.subscribers.ts). */
  corpora: Pick<CorporaService, 'document'>
  /** Key changes move the workspace's security revision on; the keyring's memo goes by it. */
  workspaces: WorkspacesService
}

/**
 * Customer-managed keys (docs/encryption.md): the settings routes, the keyring the object store
 * seals and opens workspaces' objects with, and the passes that seal old objects and re-wrap keys.
 */
export function kmsFeature(p: Platform, d: KmsFeatureDeps): Feature<KmsService> {
  const repo = new KmsRepo(p.store)
  const local = new LocalKeys(new Sealer(d.secret, 'engram/kms/local-key'))
  const aws = new AwsKeys(d.config)
  const keyring = new KmsKeyring({
    store: p.store,
    repo,
    clock: p.clock,
    local,
    aws,
    cacheSeconds: d.config.data_key_cache_seconds,
    workspaces: d.workspaces,
  })
  d.envelope.install(keyring)
  const service = new KmsService({
    ...p,
    config: d.config,
    repo,
    keyring,
    local,
    aws,
    workspaces: d.workspaces,
  })
  const pass = { store: p.store, clock: p.clock, repo, keyring, envelope: d.envelope, local, aws }
  return {
    name: 'kms',
    service,
    routes: kmsRoutes(service),
    jobs: [{ kind: PASS_JOB, run: (ctx) => runPass(pass, ctx), lane: 'bulk' }],
    subscribers: [sealUploadsSubscriber({ keyring, envelope: d.envelope, corpora: d.corpora }) as Subscriber],
    stop: () => aws.close(),
  }
}
