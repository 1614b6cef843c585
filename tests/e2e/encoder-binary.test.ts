import { expect, test } from 'bun:test'
import { TWO_POLICIES } from '../api/texts.fixture'
import { binaryForFile, signUpOn } from '../helpers/binary'

// The built-in sentence encoder in the compiled executable: its thread's script, the model's
// weights, vocabulary and WebAssembly files all come from inside the binary (it runs from an empty
// directory), and so does the cartridge compiler's thread. A question that only shares the base's
// words is declined, which the word-level check alone would answer
// (tests/api/answers-abstain-encoder.test.ts shows both).
const binary = binaryForFile('engram-encoder-')

test('the executable asks its embedded encoder and declines a question that only shares the base’s words', async () => {
  const api = (path: string, init: RequestInit = {}) => fetch(`${binary().url}${path}`, init)
  const auth = await signUpOn(binary().url, 'encoder@example.com', 'Encoder')
  const json = { ...auth, 'content-type': 'application/json' }
  const created = await api('/v1/corpora', {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ name: 'Policies' }),
  })
  const corpusId = ((await created.json()) as { id: string }).id
  const form = new FormData()
  for (const f of TWO_POLICIES) form.append('files', new File([f.text], f.path, { type: 'text/markdown' }))
  const up = await api(`/v1/corpora/${corpusId}/documents`, { method: 'POST', headers: auth, body: form })
  expect(up.status).toBe(200)
  // Extraction runs in the background (the upload's sync run), then one onboarding run.
  const settled = async (path: string, done: (body: { status: string }) => boolean) => {
    for (let i = 0; i < 5000; i++) {
      const body = (await (await api(path, { headers: auth })).json()) as { status: string }
      if (done(body)) return body
      await Bun.sleep(10)
    }
    throw new Error(`${path} never settled`)
  }
  await settled(
    `/v1/corpora/${corpusId}/sync-runs/${up.headers.get('x-sync-run-id')}`,
    (r) => r.status !== 'running',
  )
  const train = await api(`/v1/corpora/${corpusId}/train`, { method: 'POST', headers: auth })
  expect(train.status).toBe(200)
  expect(
    await settled(`/v1/corpora/${corpusId}`, (b) => b.status === 'ready' || b.status === 'failed'),
  ).toMatchObject({
    status: 'ready',
  })
  const ask = async (question: string) => {
    const res = await api(`/v1/corpora/${corpusId}/chat`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ question, strategy: 'rag' }),
    })
    expect(res.status).toBe(200)
    return (await res.json()) as { answer: string; answered: boolean }
  }
  expect(await ask('Who approves the travel budget?')).toMatchObject({ answered: false })
  const own = await ask('How many days before departure do employees book flights?')
  expect(own.answered).toBe(true)
  expect(own.answer).toContain('14 days before departure')
  // Neither the encoder's thread nor the cartridge compiler's fell back: both scripts were found.
  expect(binary().lines.filter((l) => l.level === 'warn' || l.level === 'error')).toEqual([])
}, 120_000)
