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

/**
 * Logs at start-up what tells the support check that a base holds no answer (so the answer declines):
 * the embeddings server's model, or the built-in sentence encoder beside the words, or the words only.
 */
export function logSupportSettings(embed: Config['embed'], log: Logger): void {
  if (embed.url) {
    log.info("support check: the embeddings server's model", {
      embed_url: printableUrl(embed.url),
      embed_model: embed.model,
    })
  } else if (embed.encoder) {
    log.info('support check: words, and the built-in encoder for the questions they leave unsure', {
      encoder_idle_seconds: embed.encoder_idle_seconds,
    })
  } else log.info('support check: words only (the built-in encoder is off)', { encoder: false })
}
