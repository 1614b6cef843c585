import type { Config } from '../config/config.load'
import type { Logger } from '../log/log'

/** The model server's URL as it may be printed: user, password, query and fragment removed. */
export function printableUrl(url: string): string {
  try {
    const u = new URL(url)
    u.username = ''
    u.password = ''
    u.search = ''
    u.hash = ''
    return u.toString().replace(/\/$/, '')
  } catch {
    return '(not a valid URL)'
  }
}

/**
 * Logs at start-up how answers are generated: the model server (URL without credentials), model,
 * timeout and strict mode, or the extractive engine when none is configured. The API key is never
 * logged, only whether one is set.
 */
export function logModelSettings(llm: Config['llm'], log: Logger): void {
  if (!llm.url) {
    log.info('answers: extractive engine (no model server configured)', { llm: null })
    return
  }
  log.info('answers: model server', {
    llm_url: printableUrl(llm.url),
    llm_model: llm.model ?? 'default',
    llm_timeout_ms: llm.timeout_ms,
    llm_strict: llm.strict,
    llm_api_key: llm.api_key ? 'set' : 'unset',
    when_down: llm.strict ? '503 with Retry-After' : 'extractive answer, marked fallback',
  })
}
