import type { Static } from '@sinclair/typebox'
import { type Clock, iso } from '../../platform/clock/clock'
import type { Config } from '../../platform/config/config.load'
import { pingStore } from '../../platform/db/raw'
import type { Store } from '../../platform/db/store'
import type { SloResp, StatusResp } from './status.schemas'

type Component = Static<typeof StatusResp>['components'][number]

/** One component's check; features that own a dependency (storage, engine, jobs) add theirs. */
export interface StatusProbe {
  name: string
  check(): Promise<Omit<Component, 'name'>> | Omit<Component, 'name'>
}

/** A probe that runs a trivial query on the store's database (SQLite or PostgreSQL): it answers, and how fast. */
export function databaseProbe(store: Store): StatusProbe {
  return {
    name: 'database',
    async check() {
      const started = performance.now()
      try {
        await pingStore(store)
        return { status: 'operational', latency_ms: Math.round((performance.now() - started) * 1000) / 1000 }
      } catch (e) {
        return { status: 'down', detail: (e as Error).message }
      }
    },
  }
}

/** Live platform status, measured at most once per configured interval and shared by every caller. */
export class StatusService {
  private cached: { at: number; value: Promise<Static<typeof StatusResp>> } | null = null

  constructor(
    private readonly config: Config['status'],
    private readonly clock: Clock,
    private readonly version: string,
    private readonly probes: StatusProbe[],
  ) {}

  /** The current status; a measurement younger than `status.cache_seconds` is reused. */
  status(): Promise<Static<typeof StatusResp>> {
    const now = this.clock.now().getTime()
    const ttl = this.config.cache_seconds * 1000
    if (this.cached && now - this.cached.at < ttl) return this.cached.value
    const value = this.measure(now)
    this.cached = { at: now, value }
    // A failed measurement is not reused.
    value.catch(() => {
      if (this.cached?.value === value) this.cached = null
    })
    return value
  }

  /** The published objectives, from configuration. */
  slo(): Static<typeof SloResp> {
    const s = this.config
    return {
      window_days: s.slo_window_days,
      availability: { target_percent: s.slo_availability_percent },
      latency: { p50_ms: s.slo_latency_p50_ms, p99_ms: s.slo_latency_p99_ms },
    }
  }

  private async measure(now: number): Promise<Static<typeof StatusResp>> {
    const components = await Promise.all(
      this.probes.map(async (p): Promise<Component> => {
        try {
          return { name: p.name, ...(await p.check()) }
        } catch (e) {
          return { name: p.name, status: 'down', detail: (e as Error).message }
        }
      }),
    )
    const healthy = components.every((c) => c.status === 'operational' || c.status === 'disabled')
    return {
      status: healthy ? 'operational' : 'degraded',
      version: this.version,
      checked_at: iso(new Date(now)),
      cache_seconds: this.config.cache_seconds,
      components,
    }
  }
}
