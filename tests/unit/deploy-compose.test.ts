import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { serviceRoutes } from '../../src/features/service/service.routes'
import { s3Setup } from '../../src/features/sources/s3-setup'
import { configDefinition, type Leaf } from '../../src/platform/config/config.definition'
import { type Config, loadConfig } from '../../src/platform/config/config.load'

// deploy/compose.yaml cannot be run here (no Docker), so what can be checked without running it is:
// every ENGRAM_* name it (and its image and env file) uses is a setting the server reads; the three
// replicas get one configuration, which loads; they share the secret's source and the database;
// the health check asks a route that answers without a credential; the balancer and the MinIO
// policy agree with what the server expects.

const DEPLOY = resolve(import.meta.dir, '../../deploy')
const read = (file: string) => readFileSync(join(DEPLOY, file), 'utf8')

interface Service {
  command?: string[]
  environment?: Record<string, string>
  depends_on?: Record<string, { condition: string }> | string[]
  healthcheck?: { test: string[] }
  volumes?: string[]
  networks?: string[] | Record<string, { ipv4_address?: string }>
}
interface Compose {
  services: Record<string, Service>
  networks: Record<string, { ipam: { config: { subnet: string }[] } }>
}

const composeText = read('compose.yaml')
const compose = Bun.YAML.parse(composeText) as Compose
const services = compose.services

/** Every variable the server reads: each setting's, and ENGRAM_CONFIG (the file, read by the loader). */
const SETTINGS = new Set([
  'ENGRAM_CONFIG',
  ...Object.values(configDefinition).flatMap((leaves) =>
    (Object.values(leaves) as Leaf[]).flatMap((l) => (l.env ? [l.env] : [])),
  ),
])

/** deploy/env.example's assignments, each empty secret given a stand-in of 64 hex digits. */
const envExample = Object.fromEntries(
  read('env.example')
    .split('\n')
    .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
    .map((line) => {
      const [name, value] = [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]
      return [name, value || '0123456789abcdef'.repeat(4)]
    }),
)

const INTERPOLATION = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g

/** Compose's interpolation of `${NAME}`, `${NAME:-default}` and `${NAME:?message}` from `vars`. */
function interpolate(value: string, vars: Record<string, string>): string {
  return value.replace(INTERPOLATION, (_, name: string, op: string | undefined, arg: string) => {
    const set = vars[name]
    if (set) return set
    if (op?.endsWith('?')) throw new Error(`${name} is required: ${arg}`)
    return op?.endsWith('-') ? arg : ''
  })
}

const replicaNames = Object.keys(services).filter((name) => services[name]!.command?.[0] === 'serve')
const envOf = (name: string) => services[name]!.environment ?? {}
const resolvedEnv = (name: string) =>
  Object.fromEntries(Object.entries(envOf(name)).map(([k, v]) => [k, interpolate(String(v), envExample)]))
const configOf = (name: string): Config => loadConfig({ env: resolvedEnv(name), readFile: () => null })
const dependsOn = (name: string) => services[name]!.depends_on as Record<string, { condition: string }>
const balancerAddress = () =>
  (services.balancer!.networks as Record<string, { ipv4_address?: string }>).engram!.ipv4_address

describe('deploy/compose.yaml', () => {
  test('every ENGRAM_* name in deploy/ is a setting the server reads', () => {
    const texts = ['compose.yaml', 'env.example', 'Dockerfile', 'Caddyfile'].map(read)
    const names = new Set(texts.flatMap((t) => [...t.matchAll(/ENGRAM_[A-Z0-9_]+/g)].map((m) => m[0])))
    for (const name of replicaNames.flatMap((n) => Object.keys(envOf(n)))) names.add(name)
    expect(names.size).toBeGreaterThan(10)
    expect([...names].filter((n) => !SETTINGS.has(n))).toEqual([])
  })

  test('env.example names every variable the file requires', () => {
    const required = [...composeText.matchAll(INTERPOLATION)]
      .filter((m) => m[2]?.endsWith('?'))
      .map((m) => m[1]!)
    expect(required.length).toBeGreaterThan(3)
    expect(required.filter((name) => !(name in envExample))).toEqual([])
  })

  test('three replicas with one configuration: the same secret source, database and store', () => {
    expect(replicaNames).toEqual(['engram-1', 'engram-2', 'engram-3'])
    const [first, ...others] = replicaNames.map(envOf)
    for (const env of others) expect(env).toEqual(first!)
    // The secret is interpolated from the env file, never written in the compose file.
    expect(first!.ENGRAM_SECRET).toMatch(/^\$\{ENGRAM_SECRET:\?[^}]*\}$/)
    expect(first!.ENGRAM_DATABASE_URL).toContain('${POSTGRES_PASSWORD')
    expect(envOf('migrate').ENGRAM_DATABASE_URL).toBe(first!.ENGRAM_DATABASE_URL)
    expect(first!.ENGRAM_STORAGE).toBe('s3')
  })

  test("each replica's configuration loads, on PostgreSQL and S3, trusting the balancer alone", () => {
    for (const name of replicaNames) {
      const config = configOf(name)
      expect(config.data.database_url).toStartWith('postgres://engram:')
      expect(config.security.secret).toHaveLength(64)
      expect(config.storage.driver).toBe('s3')
      expect(config.storage.s3_endpoint).toBe('http://minio:9000')
      // One passage index for the three: without it each answers only the bases onboarded on it.
      expect(config.engine.shared_index).toBe(true)
      expect(config.server.trusted_proxies).toBe(balancerAddress()!)
    }
    const subnet = compose.networks.engram!.ipam.config[0]!.subnet
    expect(balancerAddress()!.startsWith(subnet.replace(/0\/24$/, ''))).toBe(true)
  })

  test('each replica keeps its own data dir; all wait for the database, the bucket and the migration', () => {
    const volumes = replicaNames.map((name) => {
      const [volume, path] = services[name]!.volumes![0]!.split(':')
      expect(path).toBe(configOf(name).data.dir)
      return volume
    })
    expect(new Set(volumes).size).toBe(3)
    for (const name of replicaNames) {
      expect(dependsOn(name)).toEqual({
        postgres: { condition: 'service_healthy' },
        minio: { condition: 'service_healthy' },
        'minio-setup': { condition: 'service_completed_successfully' },
        migrate: { condition: 'service_completed_successfully' },
      })
    }
    expect(services.migrate!.command).toEqual(['migrate'])
    expect(dependsOn('migrate')).toEqual({ postgres: { condition: 'service_healthy' } })
    expect(services.postgres!.healthcheck).toBeDefined()
    expect(services.minio!.healthcheck).toBeDefined()
  })

  test('the health check asks a route that answers without a credential, as does the balancer', () => {
    const url = new URL(services['engram-1']!.healthcheck!.test.at(-1)!)
    expect(url.port).toBe(configOf('engram-1').server.port.toString())
    const routes = serviceRoutes({
      version: 'test',
      frozenRemovalDate: null,
      openapi: () => ({}),
      ready: async () => {},
    })
    const route = routes.find((r) => r.method === 'GET' && r.path === url.pathname)
    expect(route?.auth).toBe('none')
    const caddyfile = read('Caddyfile')
    expect(caddyfile).toContain(`health_uri ${url.pathname}\n`)
    const upstreams = caddyfile
      .match(/reverse_proxy ([^{]+)\{/)![1]!
      .trim()
      .split(/\s+/)
    expect(upstreams).toEqual(replicaNames.map((name) => `${name}:${url.port}`))
    expect(caddyfile).toContain('lb_policy round_robin')
    expect(caddyfile).not.toMatch(/^\s*flush_interval/m)
  })

  test("the MinIO user's policy is the one the server asks for, on its bucket", () => {
    const storage = configOf('engram-1').storage
    expect(services['minio-setup']!.environment!.S3_BUCKET).toBe(storage.s3_bucket!)
    expect(JSON.parse(read('minio/engram-policy.json'))).toEqual(s3Setup(storage).engram_policy)
  })
})
