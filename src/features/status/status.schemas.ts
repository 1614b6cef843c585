import { Type } from '@sinclair/typebox'
import { namedObject } from '../../platform/http/schema'

const ComponentStatus = Type.Union([
  Type.Literal('operational'),
  Type.Literal('degraded'),
  Type.Literal('down'),
  Type.Literal('disabled'),
])

export const StatusResp = namedObject('StatusResp', {
  status: Type.Union([Type.Literal('operational'), Type.Literal('degraded')], {
    description: 'degraded when any component is degraded or down.',
  }),
  version: Type.String(),
  checked_at: Type.String({ format: 'date-time', description: 'When this measurement was taken.' }),
  cache_seconds: Type.Integer({ description: 'How long the measurement is reused.' }),
  components: Type.Array(
    Type.Object({
      name: Type.String(),
      status: ComponentStatus,
      latency_ms: Type.Optional(Type.Number()),
      detail: Type.Optional(Type.String()),
    }),
  ),
})

export const SloResp = namedObject('SloResp', {
  window_days: Type.Integer({ description: 'Rolling window the objectives are measured over.' }),
  availability: Type.Object({
    target_percent: Type.Number({ description: 'Share of requests answered without a server error.' }),
  }),
  latency: Type.Object({
    p50_ms: Type.Integer({ description: 'Median request latency objective (chat excluded).' }),
    p99_ms: Type.Integer({ description: '99th-percentile request latency objective (chat excluded).' }),
  }),
})
