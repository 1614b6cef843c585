import { join } from 'node:path'
import type { Clock } from '../clock/clock'
import { type Config, ConfigError } from '../config/config.load'
import { privateDir } from '../files/private-files'
import { LocalObjectStore } from './local-store'
import type { ObjectStore } from './object-store'
import { S3ObjectStore } from './s3-store'

const S3_REQUIRED = [
  ['s3_endpoint', 'ENGRAM_S3_ENDPOINT'],
  ['s3_bucket', 'ENGRAM_S3_BUCKET'],
  ['s3_access_key', 'ENGRAM_S3_ACCESS_KEY'],
  ['s3_secret_key', 'ENGRAM_S3_SECRET_KEY'],
] as const

/**
 * The object store the configuration asks for: local files under `<dataDir>/objects` (default), or
 * an S3 bucket. Refuses an incomplete S3 configuration up front rather than at the first upload.
 */
export function createObjectStore(
  config: { storage: Omit<Config['storage'], 's3_sts_endpoint' | 's3_role_arn'> },
  dataDir: string,
  deps: { clock?: Clock } = {},
): ObjectStore {
  const s = config.storage
  if (s.driver === 'local') {
    const root = join(dataDir, 'objects')
    // An older version made its folders 0755: the root is tightened, which closes everything below.
    privateDir(root)
    return new LocalObjectStore({ root, clock: deps.clock })
  }
  const problems = S3_REQUIRED.filter(([k]) => !s[k]).map(
    ([k, env]) => `storage.${k} (${env}) is required when storage.driver is s3`,
  )
  if (s.s3_endpoint && !/^https?:\/\/[^\s/]+\/?$/.test(s.s3_endpoint)) {
    problems.push(`storage.s3_endpoint must be an http(s) URL without a path, got ${s.s3_endpoint}`)
  }
  if (problems.length > 0) throw new ConfigError(problems)
  return new S3ObjectStore({
    endpoint: s.s3_endpoint!,
    bucket: s.s3_bucket!,
    accessKey: s.s3_access_key!,
    secretKey: s.s3_secret_key!,
    region: s.s3_region,
    clock: deps.clock,
  })
}
