import { afterAll, describe, expect, test } from 'bun:test'
import { testApp } from '../helpers/app'

// GET /v1/platform/info: public, from configuration and the extraction table, never an address or key.

// The defaults, local storage among them, in either pass (the object store is a destination only on S3).
const plain = testApp({ env: { ENGRAM_STORAGE: 'local' } })
const wired = testApp({
  env: {
    ENGRAM_STORAGE: 'local',
    ENGRAM_LLM_URL: 'http://models.internal.example:8000/v1',
    ENGRAM_LLM_API_KEY: 'sk-secret-model-key',
    ENGRAM_EMBED_URL: 'http://embed.internal.example:9000/v1',
  },
})
afterAll(() => {
  plain.close()
  wired.close()
})

interface Info {
  storage: string
  region: string | null
  egress: { summary: string; destinations: { name: string; purpose: string; configured: boolean }[] }
  accepted_file_types: { kind: string; content_type: string; extensions: string[] }[]
  limits: { max_file_bytes: number }
}

describe('platform info', () => {
  test('answers without a credential: local storage, no region, nothing sent anywhere by default', async () => {
    const res = await plain.request('/v1/platform/info')
    expect(res.status).toBe(200)
    const info = (await res.json()) as Info
    expect(info.storage).toBe('local')
    expect(info.region).toBeNull()
    expect(info.egress.destinations.map((d) => d.name)).toEqual([
      'object store',
      'model server',
      'embeddings server',
      'email (SMTP)',
      'document sources',
      'billing provider',
    ])
    const sources = info.egress.destinations.find((d) => d.name === 'document sources')!
    expect(sources.purpose).toContain('metadata addresses are always refused')
    expect(info.egress.destinations.every((d) => !d.configured)).toBe(true)
    expect(info.limits.max_file_bytes).toBe(plain.deps.config.ingest.max_file_bytes)
  })

  test('lists the file types extraction reads, with their endings', async () => {
    const info = (await (await plain.request('/v1/platform/info')).json()) as Info
    const byKind = Object.fromEntries(info.accepted_file_types.map((t) => [t.kind, t]))
    expect(Object.keys(byKind)).toEqual([
      'pdf',
      'docx',
      'pptx',
      'xlsx',
      'html',
      'markdown',
      'csv',
      'json',
      'text',
    ])
    expect(byKind.pdf).toEqual({ kind: 'pdf', content_type: 'application/pdf', extensions: ['.pdf'] })
    expect(byKind.csv!.extensions).toEqual(['.csv', '.tsv'])
    expect(byKind.markdown!.extensions).toContain('.md')
  })

  test('says which destinations are configured, and never their address or key', async () => {
    const res = await wired.request('/v1/platform/info')
    const text = await res.text()
    const info = JSON.parse(text) as Info
    const configured = info.egress.destinations.filter((d) => d.configured).map((d) => d.name)
    expect(configured).toEqual(['model server', 'embeddings server'])
    expect(text).not.toContain('internal.example')
    expect(text).not.toContain('sk-secret-model-key')
  })

  test('is on the /v1 mount only, and published', async () => {
    expect((await plain.request('/platform/info')).status).toBe(404)
    const doc = (await (await plain.request('/openapi.json')).json()) as { paths: Record<string, unknown> }
    expect(Object.keys(doc.paths)).toContain('/v1/platform/info')
  })
})
