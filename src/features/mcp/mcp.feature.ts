import type { Feature, Platform } from '../../platform/feature/feature'
import type { AnswersService } from '../answers/answers.service'
import type { CorporaService } from '../corpora/corpora.service'
import { mcpRoutes } from './mcp.routes'
import { McpService } from './mcp.service'

export interface McpFeatureDeps {
  version: string
  maxBodyBytes: number
  corpora: CorporaService
  answers: AnswersService
}

/** The MCP server for agents (hosted at /mcp; `engram mcp` serves the same tools over stdio). */
export function mcpFeature(p: Platform, d: McpFeatureDeps): Feature<McpService> {
  const service = new McpService({ ...p, ...d })
  return {
    name: 'mcp',
    service,
    routes: mcpRoutes(service, { version: d.version, maxBodyBytes: d.maxBodyBytes, log: p.log }),
  }
}
