// The CLI's client of a running server's `/v1` API, with an API key: `engram push` and `engram
// onboard` speak to the server as any other client does, through the published routes.
import { visibleText } from '../../web/src/lib/visible-text'
import { CliError } from './cli-error'

/** A refusal of the server: its status and error code, with its message in the CLI's words. */
export class ApiRefusal extends CliError {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | null,
  ) {
    super(message)
  }
}

/** Calls a route under `/v1` (a path such as `/corpora/cor_x/train`); a refusal throws ApiRefusal. */
export type Api = <T>(method: string, path: string, body?: unknown) => Promise<T>

/**
 * A client of the server at `url` with `key`. `label` turns a path into the name used in messages
 * (push names its routes relative to the base: `POST /documents/commit failed (401): ...`).
 */
export function apiClient(url: string, key: string, label: (path: string) => string = (p) => p): Api {
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(`${url}/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    })
    const text = await res.text()
    if (!res.ok) {
      const { message, code } = (() => {
        try {
          const e = (JSON.parse(text) as { error?: { message?: string; code?: string } }).error
          return { message: e?.message ?? text, code: e?.code ?? null }
        } catch {
          return { message: text, code: null }
        }
      })()
      throw new ApiRefusal(
        `${method} ${label(path)} failed (${res.status}): ${visibleText(message)}`,
        res.status,
        code,
      )
    }
    return JSON.parse(text) as T
  }
}

/** A client of one base's routes: paths are relative to `/v1/corpora/{base}`, and so are messages. */
export function baseClient(url: string, key: string, base: string): Api {
  const prefix = `/corpora/${encodeURIComponent(base)}`
  const api = apiClient(url, key, (p) => p.slice(prefix.length) || '/')
  return (method, path, body) => api(method, `${prefix}${path}`, body)
}
