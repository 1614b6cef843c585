import { afterAll, expect, test } from 'bun:test'
import { AwsKeys, KmsRefused } from '../../../src/features/kms/kms.aws'
import { loadConfig } from '../../../src/platform/config/config.load'
import { startKmsStandin } from '../../helpers/kms-standin'

// The aws-kms provider's connections resolve the KMS's name through the outbound guard each time
// they connect, so a name that passed when the key was saved and later resolves to a forbidden
// address (DNS rebinding) is refused then.

const kms = startKmsStandin('AKIAUNIT000000000000')
afterAll(() => kms.stop())

const config = loadConfig({
  env: {
    ENGRAM_KMS_ALLOW_HTTP: 'true',
    ENGRAM_KMS_ALLOW_LOOPBACK: 'true',
    ENGRAM_KMS_AWS_ACCESS_KEY_ID: 'AKIAUNIT000000000000',
    ENGRAM_KMS_AWS_SECRET_ACCESS_KEY: 'unit',
    ENGRAM_KMS_TIMEOUT_MS: '2000',
  },
  readFile: () => null,
}).kms

const ref = {
  keyId: kms.createKey(),
  endpoint: `http://kms.engram.test:${new URL(kms.url).port}`,
  region: null,
}

test('a KMS reached by name: its addresses are judged at connection, and a rebound name is refused', async () => {
  const answers: Record<string, string[]> = { 'kms.engram.test': ['127.0.0.1'] }
  const resolve = async (host: string) => answers[host] ?? []
  const first = new AwsKeys(config, resolve)
  const dk = await first.generate('ws_1', ref)
  expect(Buffer.from(await first.unwrap('ws_1', ref, dk.wrapped)).equals(Buffer.from(dk.plaintext))).toBe(
    true,
  )
  first.close()
  for (const rebound of ['169.254.169.254', '10.0.0.7']) {
    answers['kms.engram.test'] = [rebound]
    const next = new AwsKeys(config, resolve)
    const calls = kms.calls.length
    const err = await next.unwrap('ws_1', ref, dk.wrapped).catch((e) => e)
    expect(err).toBeInstanceOf(KmsRefused)
    expect(kms.calls.length).toBe(calls)
    next.close()
  }
})

test('a data key is bound to its workspace: another workspace cannot have the KMS open it', async () => {
  const keys = new AwsKeys(config, async () => ['127.0.0.1'])
  const dk = await keys.generate('ws_1', ref)
  const err = await keys.unwrap('ws_2', ref, dk.wrapped).catch((e) => e)
  expect(err).toBeInstanceOf(KmsRefused)
  expect((err as KmsRefused).reason).toBe('InvalidCiphertextException')
  keys.close()
})
