import { describe, expect, test } from 'bun:test'
import {
  breakEvenQueries,
  GB,
  gpuSeconds,
  money,
  onboardingCost,
  queryCost,
  type RateCard,
  ratio,
} from '../../src/features/economics/lib/cost'
import { cartridgeFootprint } from '../../src/features/economics/lib/footprint'
import { leaves, trainCpuMs } from '../../src/features/economics/lib/measure'
import { sampleQueries } from '../../src/features/economics/lib/sample'
import { seededRandom } from '../../src/platform/crypto/random'
import type { Job } from '../../src/platform/jobs/queue'
import { readSse } from '../helpers/sse-read'

const rates: RateCard = {
  cpu_second_usd: 0.00002,
  memory_gb_month_usd: 4,
  gpu_hour_usd: 3.6,
  prefill_tokens_per_second: 1000,
  decode_tokens_per_second: 100,
  utilisation: 0.5,
}

describe('cost model', () => {
  test('a query with a model server pays CPU, amortised warm memory and GPU time, as computed by hand', () => {
    // CPU: 5 ms = 0.005 s * $0.00002 = $0.0000001.
    // Memory: 0.5 GB * $4 a month / 1000 queries a month = $0.002.
    // GPU: (2000 / 1000 + 50 / 100) s busy / 0.5 utilisation = 5 s; 5 / 3600 h * $3.6 = $0.005.
    const work = { cpuMs: 5, contextTokens: 2000, outputTokens: 50, warmBytes: GB / 2, modelServer: true }
    expect(gpuSeconds(work, rates)).toBe(5)
    const cost = queryCost(work, rates, 1000)
    expect(cost.cpu).toBeCloseTo(0.0000001, 12)
    expect(cost.memory).toBeCloseTo(0.002, 12)
    expect(cost.gpu).toBeCloseTo(0.005, 12)
    expect(cost.total).toBeCloseTo(0.0070001, 12)
  })

  test('without a model server no GPU time is charged, whatever the tokens', () => {
    const cost = queryCost(
      { cpuMs: 5, contextTokens: 2000, outputTokens: 50, warmBytes: 0, modelServer: false },
      rates,
      1000,
    )
    expect(cost).toEqual({ cpu: cost.cpu, memory: 0, gpu: 0, total: cost.cpu })
    expect(cost.cpu).toBeCloseTo(0.0000001, 12)
  })

  test('the warm-memory share of a query falls as the monthly volume grows', () => {
    const work = { cpuMs: 0, contextTokens: 0, outputTokens: 0, warmBytes: GB, modelServer: false }
    expect(queryCost(work, rates, 1).memory).toBe(4)
    expect(queryCost(work, rates, 100_000).memory).toBeCloseTo(0.00004, 12)
  })

  test('onboarding costs its measured CPU-seconds at the CPU price', () => {
    expect(onboardingCost(120_000, rates)).toBeCloseTo(0.0024, 12)
  })

  test('break-even is onboarding cost over the per-query saving, rounded up; null when cart is not cheaper', () => {
    // $0.0024 / ($0.0001 - $0.00004) = 40 queries exactly (float noise must not make it 41).
    expect(breakEvenQueries(0.0024, 0.0001, 0.00004)).toBe(40)
    expect(breakEvenQueries(0.0025, 0.0001, 0.00004)).toBe(42)
    expect(breakEvenQueries(0, 0.0001, 0.00004)).toBe(0)
    expect(breakEvenQueries(0.0024, 0.00004, 0.00004)).toBeNull()
    expect(breakEvenQueries(0.0024, 0.00003, 0.00004)).toBeNull()
  })

  test('ratios are null when either side is missing or the base is zero', () => {
    expect(ratio(3, 2)).toBe(1.5)
    expect(ratio(undefined, 2)).toBeNull()
    expect(ratio(3, undefined)).toBeNull()
    expect(ratio(3, 0)).toBeNull()
  })

  test('money keeps six significant digits of tiny amounts', () => {
    expect(money(0.000001234567891)).toBe(0.00000123457)
    expect(money(0)).toBe(0)
  })
})

function job(over: Partial<Job>): Job {
  return {
    id: 'job_x',
    workspaceId: 'ws',
    subjectId: 'cor',
    parentId: null,
    kind: 'train',
    status: 'succeeded',
    payload: {},
    result: null,
    detail: null,
    error: null,
    unitsDone: 0,
    unitsTotal: 0,
    attempts: 0,
    maxAttempts: 1,
    runAt: 0,
    leaseOwner: null,
    leaseUntil: null,
    cancelRequested: false,
    createdAt: 0,
    startedAt: null,
    finishedAt: null,
    updatedAt: 0,
    seq: 1,
    ...over,
  }
}

describe('measured onboarding time', () => {
  test('counts the finished runs since the last forced run that succeeded, in the order listed', () => {
    const runs = [
      job({ id: 'j5', createdAt: 5, status: 'running', result: { cpuMs: 1000 } }),
      job({ id: 'j4', createdAt: 4, result: { cpuMs: 10 } }),
      job({ id: 'j3', createdAt: 3, payload: { force: true }, result: { cpuMs: 70 } }),
      job({ id: 'j2', createdAt: 2, payload: { force: true }, status: 'failed', result: { cpuMs: 50 } }),
      job({ id: 'b1', createdAt: 1, kind: 'train_batch', result: { cpuMs: 999 } }),
      job({ id: 'j1', createdAt: 1, result: { cpuMs: 100 } }),
    ]
    expect(trainCpuMs(runs, 'train')).toBe(80)
    expect(trainCpuMs(runs.slice(3), 'train')).toBe(150)
    // Runs started within the same millisecond keep the queue's order.
    const sameMs = [
      job({ id: 'a', payload: { force: true }, result: { cpuMs: 7 } }),
      job({ id: 'z', result: { cpuMs: 5 } }),
    ]
    expect(trainCpuMs(sameMs, 'train')).toBe(7)
    expect(trainCpuMs([], 'train')).toBe(0)
  })
})

describe('base text', () => {
  test('leaves are sections and files that were not split', () => {
    const row = (id: string, parent_id: string | null) => ({
      id,
      parent_id,
      text_key: null,
      text_chars: 0,
      text_offset: null,
      status: 'ready',
    })
    const ids = leaves([row('p1', null), row('s1', 'p1'), row('s2', 'p1'), row('p2', null)]).map((r) => r.id)
    expect(ids).toEqual(['s1', 's2', 'p2'])
  })

  test('sampled queries are distinct openings of real sentences, the same for the same seed', () => {
    const texts = [
      'Short one. The Rhine begins in the Swiss canton of Graubünden and flows north. Too short here.',
      'The Black Death killed between seventy-five and two hundred million people in Eurasia.',
    ]
    const a = sampleQueries(texts, 5, seededRandom(3))
    expect(a.length).toBe(2)
    expect(new Set(a).size).toBe(2)
    expect(a).toContain('The Rhine begins in the Swiss canton of')
    expect(a).toContain('The Black Death killed between seventy-five and two')
    expect(sampleQueries(texts, 1, seededRandom(3))).toEqual(sampleQueries(texts, 1, seededRandom(3)))
    expect(sampleQueries(['No.'], 3, seededRandom(1))).toEqual([])
  })
})

describe('cartridge footprint', () => {
  test('counts shared cartridges once, warm ones at their warm size, cold ones at their stored size, and the route', async () => {
    const engine = {
      sectionsOf: () => [{ cartKey: 'a' }, { cartKey: 'b' }, { cartKey: 'a' }],
      cache: { get: (k: string) => (k === 'a' ? { bytes: 1000 } : undefined) },
      routeBytes: (baseId: string) => (baseId === 'cor' ? 40 : 0),
    }
    const fp = await cartridgeFootprint(engine, async (k) => (k === 'b' ? 300 : null), 'cor')
    expect(fp).toEqual({ cartridges: 2, warmBytes: 1340 })
  })
})

describe('reading a stream of events', () => {
  test('events split across chunks are rebuilt; keep-alive comments are skipped', async () => {
    const enc = new TextEncoder()
    const chunks = [
      'event: head\ndata: {"x"',
      ':1}\n\nevent: delta\ndata: "hi"\n\n: keep-alive\n\n',
      'event: done\n',
    ]
    chunks.push('data: {}\n\n')
    const body = new ReadableStream<Uint8Array>({
      start(c) {
        for (const ch of chunks) c.enqueue(enc.encode(ch))
        c.close()
      },
    })
    const got = []
    for await (const e of readSse(body)) got.push(e)
    expect(got).toEqual([
      { event: 'head', data: { x: 1 } },
      { event: 'delta', data: 'hi' },
      { event: 'done', data: {} },
    ])
  })

  test('leaving early cancels the stream, which stops its producer', async () => {
    let cancelled = false
    const body = new ReadableStream<Uint8Array>({
      pull(c) {
        c.enqueue(new TextEncoder().encode('event: delta\ndata: 1\n\n'))
      },
      cancel() {
        cancelled = true
      },
    })
    for await (const e of readSse(body)) {
      expect(e.event).toBe('delta')
      break
    }
    expect(cancelled).toBe(true)
  })
})
