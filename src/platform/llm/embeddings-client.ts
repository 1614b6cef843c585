import { postToServer, type ServerOptions } from './server-request'

/** Where the embeddings server is, and how many texts go in one request. */
export interface EmbeddingsClientOptions extends ServerOptions {
  batch: number
}

/** Client of an OpenAI-compatible embeddings server (`POST {url}/embeddings`). */
export interface EmbeddingsClient {
  readonly model: string
  /** One unit-length vector per text, in order; LlmUnavailableError when the server is down or slow. */
  embed(texts: string[]): Promise<Float32Array[]>
}

/** Builds the client; nothing is contacted until the first request. */
export function createEmbeddingsClient(o: EmbeddingsClientOptions): EmbeddingsClient {
  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    const res = await postToServer(o, '/embeddings', { input: texts, encoding_format: 'float' })
    const body = (await res.json().catch(() => null)) as { data?: { index?: number; embedding?: unknown }[] }
    const data = Array.isArray(body?.data) ? body.data : []
    const out: (Float32Array | undefined)[] = new Array(texts.length)
    for (const [i, d] of data.entries()) {
      const at = typeof d.index === 'number' ? d.index : i
      if (at >= 0 && at < texts.length && Array.isArray(d.embedding)) out[at] = unit(d.embedding)
    }
    const dims = out[0]?.length ?? 0
    for (let i = 0; i < texts.length; i++) {
      if (!out[i] || out[i]!.length !== dims || dims === 0) {
        throw new Error(
          `The model server's embeddings answer lacks a vector for input ${i} of ${texts.length}.`,
        )
      }
    }
    return out as Float32Array[]
  }

  return {
    model: o.model,
    async embed(texts) {
      const out: Float32Array[] = []
      for (let i = 0; i < texts.length; i += o.batch)
        out.push(...(await embedBatch(texts.slice(i, i + o.batch))))
      if (out.some((v) => v.length !== out[0]!.length)) {
        throw new Error("The model server's embeddings changed length between requests.")
      }
      return out
    },
  }
}

/** The vector scaled to length one, as Float32; undefined when it is not a list of finite numbers. */
function unit(v: unknown[]): Float32Array | undefined {
  let n = 0
  for (const x of v) {
    if (typeof x !== 'number' || !Number.isFinite(x)) return undefined
    n += x * x
  }
  const s = n > 0 ? 1 / Math.sqrt(n) : 0
  return Float32Array.from(v as number[], (x) => x * s)
}
