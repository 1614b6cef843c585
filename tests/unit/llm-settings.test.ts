import { describe, expect, test } from 'bun:test'
import { loadConfig } from '../../src/platform/config/config.load'
import { logModelSettings, logSupportSettings } from '../../src/platform/llm/settings'
import { memoryLogger } from '../../src/platform/log/log'

const config = (env: Record<string, string>) => loadConfig({ env, readFile: () => null }).llm

describe('the model settings logged at start-up', () => {
  test('name the server without its credentials, the model, the timeout and strict mode, never the key', () => {
    const log = memoryLogger()
    logModelSettings(
      config({
        ENGRAM_LLM_URL: 'https://bob:hunter2@llm.internal:8443/v1?token=q-secret#frag',
        ENGRAM_LLM_MODEL: 'qwen-7b',
        ENGRAM_LLM_API_KEY: 'sk-live-0123456789',
        ENGRAM_LLM_TIMEOUT_MS: '4000',
        ENGRAM_LLM_STRICT: 'true',
      }),
      log,
    )
    expect(log.lines).toHaveLength(1)
    expect(log.lines[0]).toMatchObject({
      msg: 'answers: model server',
      llm_url: 'https://llm.internal:8443/v1',
      llm_model: 'qwen-7b',
      llm_timeout_ms: 4000,
      llm_strict: true,
      llm_api_key: 'set',
      when_down: '503 with Retry-After',
    })
    const printed = JSON.stringify(log.lines)
    for (const secret of ['sk-live-0123456789', 'hunter2', 'bob', 'q-secret'])
      expect(printed).not.toContain(secret)
  })

  test('say the extractive engine answers when no model server is configured, and strict is off by default', () => {
    const log = memoryLogger()
    logModelSettings(config({}), log)
    expect(log.lines[0]).toMatchObject({ msg: 'answers: extractive engine (no model server configured)' })
    const fallback = memoryLogger()
    logModelSettings(config({ ENGRAM_LLM_URL: 'http://127.0.0.1:8000/v1' }), fallback)
    expect(fallback.lines[0]).toMatchObject({
      llm_strict: false,
      llm_api_key: 'unset',
      when_down: 'extractive answer, marked fallback',
    })
  })
})

describe('the support check settings logged at start-up', () => {
  const embed = (env: Record<string, string>) => loadConfig({ env, readFile: () => null }).embed
  test('the built-in encoder by default, words only when it is off, the server without its credentials', () => {
    const log = memoryLogger()
    logSupportSettings(embed({}), log)
    logSupportSettings(embed({ ENGRAM_EMBED_ENCODER: 'false' }), log)
    logSupportSettings(
      embed({
        ENGRAM_EMBED_URL: 'https://u:pw-secret@emb.internal/v1',
        ENGRAM_EMBED_API_KEY: 'sk-emb-secret',
      }),
      log,
    )
    expect(log.lines).toMatchObject([
      {
        msg: 'support check: words, and the built-in encoder for the questions they leave unsure',
        encoder_idle_seconds: 300,
      },
      { msg: 'support check: words only (the built-in encoder is off)', encoder: false },
      { msg: "support check: the embeddings server's model", embed_url: 'https://emb.internal/v1' },
    ])
    expect(JSON.stringify(log.lines)).not.toContain('secret')
  })
})
