/**
 * Command lines the MCP page prints for checking the hosted MCP server by hand with the MCP
 * Inspector (`npx @modelcontextprotocol/inspector`, a client Engram did not write). Kept here, out
 * of the page, because tests/e2e/mcp-inspector.test.ts runs these very strings: what is printed is
 * what was run. The Inspector needs Node.js 22.19 or later. `--transport http` is needed: the
 * Inspector guesses HTTP only for addresses ending in /mcp, and Engram's ends in /mcp-http/.
 */

/** Where an API key goes until the reader puts theirs. */
export const KEY_PLACEHOLDER = 'ek_...'

const INSPECTOR = 'npx @modelcontextprotocol/inspector --cli'

/** Lists the server's tools: the address and the key work. */
export function inspectorListCommand(url: string, key: string): string {
  return `${INSPECTOR} ${url} --transport http --method tools/list --header "Authorization: Bearer ${key}"`
}

/** Asks a base a question through the query_base tool (the key needs the query scope). */
export function inspectorAskCommand(url: string, key: string, baseId: string, question: string): string {
  return `${INSPECTOR} ${url} --transport http --method tools/call --tool-name query_base --tool-arg base_id=${baseId} "question=${question.replace(/["\\$`]/g, '')}" --header "Authorization: Bearer ${key}"`
}
