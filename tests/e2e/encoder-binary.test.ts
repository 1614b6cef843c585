import { expect, test } from 'bun:test'
import { binaryForFile, signUpOn } from '../helpers/binary'

// The built-in sentence encoder in the compiled executable: its thread's script, the model's
// weights, vocabulary and WebAssembly files all come from inside the binary (it runs from an empty
// directory), and so does the cartridge compiler's thread. A question that only shares the base's words is declined, which the word-level check
// alone would answer (tests/api/answers-abstain-encoder.test.ts shows both).
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
  form.append(
    'files',
    new File(
      [
        '# Travel policy\n\nEmployees book flights through the travel desk at least 14 days before departure. ' +
          'Economy class is used for flights shorter than six hours.',
      ],
      'travel-policy.md',
      { type: 'text/markdown' },
    ),
  )
  form.append(
    'files',
    new File(
      ['# Holidays\n\nFull-time staff have 27 days of paid leave a year, approved by the team lead.'],
      'holidays.md',
      {
        type: 'text/markdown',
      },
    ),
  )
  expect(
    (await api(`/v1/corpora/${corpusId}/documents`, { method: 'POST', headers: auth, body: form })).status,
  ).toBe(200)
  // Documents are extracted in the background; a run started before they are ready onboards none.
  for (let i = 0; ; i++) {
    if (i > 2000) throw new Error('the base never became ready')
    const base = (await (await api(`/v1/corpora/${corpusId}`, { headers: auth })).json()) as {
      status: string
      document_count?: number
    }
    if (base.status === 'ready') break
    if (i % 20 === 0) await api(`/v1/corpora/${corpusId}/train`, { method: 'POST', headers: auth })
    await Bun.sleep(10)
  }
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
