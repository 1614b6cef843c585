import { describe, expect, test } from 'bun:test'
import { Gate, SaturatedError } from '../../src/platform/concurrency/gate'

describe('concurrency gate', () => {
  test('admits up to maxActive, queues up to maxQueued, refuses the rest at once', async () => {
    const gate = new Gate(2, 1)
    const r1 = await gate.acquire()
    const r2 = await gate.acquire()
    let thirdIn = false
    const third = gate.acquire().then((r) => {
      thirdIn = true
      return r
    })
    expect(gate.queued).toBe(1)
    await expect(gate.acquire()).rejects.toBeInstanceOf(SaturatedError)
    expect(thirdIn).toBe(false)
    r1()
    const r3 = await third
    expect(thirdIn).toBe(true)
    expect(gate.running).toBe(2)
    r2()
    r3()
    expect(gate.running).toBe(0)
  })

  test('releasing twice frees one slot only', async () => {
    const gate = new Gate(1, 0)
    const r = await gate.acquire()
    r()
    r()
    expect(gate.running).toBe(0)
    await gate.acquire()
    expect(gate.running).toBe(1)
  })

  test('run releases its slot when the task fails', async () => {
    const gate = new Gate(1, 0)
    await expect(gate.run(async () => Promise.reject(new Error('x')))).rejects.toThrow('x')
    expect(gate.running).toBe(0)
  })
})
