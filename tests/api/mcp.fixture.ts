import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import type { TestApp } from '../helpers/app'
import { type FixtureFile, type ReadyBase, readyBase } from '../helpers/ready-base'

/** A long document: 40 numbered paragraphs, so its text needs several pages. */
export const LONG_TEXT = Array.from(
  { length: 40 },
  (_, i) =>
    `Paragraph ${i + 1} of the maintenance manual. The turbine inspection interval is ${i + 10} days, ` +
    'and every inspection is logged with the date, the inspector and the blade wear measured in millimetres. '
      .repeat(4)
      .trim(),
).join('\n\n')

/** Documents of the fixture base: distinct topics, one found only by its description, one long. */
export const FILES: FixtureFile[] = [
  {
    path: 'oil.txt',
    text:
      'The 1973 oil crisis began in October 1973 when the members of OAPEC proclaimed an oil embargo. ' +
      'By the end of the embargo in March 1974, the price of oil had risen from 3 dollars per barrel to nearly 12 dollars.',
  },
  {
    path: 'rhine.txt',
    text:
      'The Rhine is a European river that begins in the Swiss canton of Graubünden. ' +
      'It flows through Germany and the Netherlands and empties into the North Sea.',
  },
  {
    path: 'notes/alpine.md',
    text: '# Alpine notes\n\nGlaciers of the Alps have lost half their volume since 1900, measured by the Swiss survey.',
    type: 'text/markdown',
  },
  { path: 'manual.txt', text: LONG_TEXT },
]

/** The text of the first content block of a tool result. */
export function textOf(result: CallToolResult | Record<string, unknown>): string {
  const content = (result as CallToolResult).content
  const first = content[0]
  return first && first.type === 'text' ? first.text : ''
}

/**
 * An MCP SDK client over Streamable HTTP with `key` as bearer. `fetch` routes the requests through
 * the app in-process (api tests); without it they go over the network to `url`.
 */
export async function mcpClient(
  url: string,
  key: string,
  fetchImpl?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>,
): Promise<Client> {
  const client = new Client({ name: 'engram-tests', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
    ...(fetchImpl ? { fetch: fetchImpl } : {}),
  })
  await client.connect(transport)
  return client
}

/** Calls a tool and returns the result with its text. */
export async function call(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult
  return { result, text: textOf(result), data: result.structuredContent as Record<string, unknown> }
}

/** The MCP tests' tenants: a base holding FILES, and another workspace whose base holds a secret. */
export async function mcpTenants(
  t: TestApp,
  otherName?: string,
): Promise<{ b: ReadyBase; other: ReadyBase }> {
  const b = await readyBase(t, FILES)
  const secret = [{ path: 'secret.txt', text: 'The launch code of the other workspace is 0000.' }]
  return { b, other: await readyBase(t, secret, otherName) }
}
