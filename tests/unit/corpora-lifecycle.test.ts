import { describe, expect, test } from 'bun:test'
import {
  assertMove,
  canMove,
  type DocumentState,
  stateOf,
  statusesInto,
  TRANSITIONS,
  wireStatusOf,
} from '../../src/features/corpora/corpora.lifecycle'
import { ApiError } from '../../src/platform/errors/errors'

const STATES = Object.keys(TRANSITIONS) as DocumentState[]

describe("a document's lifecycle", () => {
  test('uploaded and extracted are both pending on the wire, told apart by the text sidecar', () => {
    expect(stateOf({ status: 'pending', textKey: null })).toBe('uploaded')
    expect(stateOf({ status: 'pending', textKey: 'text/doc_1.txt' })).toBe('extracted')
    expect(stateOf({ status: 'onboarding', textKey: null })).toBe('onboarding')
    expect(stateOf({ status: 'ready', textKey: 'text/doc_1.txt' })).toBe('ready')
    expect(stateOf({ status: 'failed', textKey: null })).toBe('failed')
    expect(
      ['uploaded', 'extracted', 'onboarding', 'ready', 'failed'].map((s) => wireStatusOf(s as 'ready')),
    ).toEqual(['pending', 'pending', 'onboarding', 'ready', 'failed'])
  })

  test('the path of a document through a run is legal: uploaded, extracted, onboarding, ready or failed, deleted', () => {
    const path: DocumentState[] = ['uploaded', 'extracted', 'onboarding', 'ready', 'deleted']
    for (let i = 1; i < path.length; i++) expect(canMove(path[i - 1]!, path[i]!)).toBe(true)
    expect(canMove('onboarding', 'failed')).toBe(true)
    // A stopped run puts what it did not settle back; new content starts a document over.
    expect(canMove('onboarding', 'extracted')).toBe(true)
    expect(canMove('ready', 'uploaded')).toBe(true)
    expect(canMove('failed', 'uploaded')).toBe(true)
    // A forced run takes ready documents again.
    expect(canMove('ready', 'onboarding')).toBe(true)
  })

  test('illegal moves: nothing leaves deleted, nothing is ready without its text, a failed one is not taken or made ready', () => {
    for (const s of STATES) expect(canMove('deleted', s)).toBe(false)
    for (const s of STATES.filter((s) => s !== 'deleted')) expect(canMove(s, 'deleted')).toBe(true)
    expect(canMove('uploaded', 'ready')).toBe(false)
    expect(canMove('failed', 'onboarding')).toBe(false)
    expect(canMove('failed', 'ready')).toBe(false)
    expect(canMove('ready', 'ready')).toBe(false)
  })

  test('an illegal move is refused with the error table’s 409 conflict, naming the document and the move', () => {
    expect(() => assertMove('extracted', 'onboarding', 'doc_1')).not.toThrow()
    let error: unknown
    try {
      assertMove('failed', 'onboarding', 'doc_1')
    } catch (e) {
      error = e
    }
    expect(error).toBeInstanceOf(ApiError)
    expect({ code: (error as ApiError).code, status: (error as ApiError).status }).toEqual({
      code: 'conflict',
      status: 409,
    })
    expect((error as ApiError).message).toBe('Document doc_1 cannot go from failed to onboarding.')
  })

  test('a statement that moves many rows takes only the statuses that may move there', () => {
    expect(statusesInto('ready').sort()).toEqual(['onboarding', 'pending'])
    expect(statusesInto('onboarding').sort()).toEqual(['onboarding', 'pending', 'ready'])
    expect(statusesInto('uploaded').sort()).toEqual(['failed', 'onboarding', 'pending', 'ready'])
  })
})
