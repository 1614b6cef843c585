import { Placeholder } from './placeholder'

/** MCP. */
export function Mcp(_props: { id?: string }) {
  return <Placeholder title="MCP" />
}
