import { describe, expect, test } from 'bun:test'
import {
  EDEN_RATIO_VARIABLE,
  edenRatio,
  GROWTH_VARIABLE,
  HEAP_GROWTH,
  HEAP_VARIABLE,
  restartCommand,
  sizeHeap,
} from '../../src/cli/heap-size'
import { heapRamBytes } from '../../src/features/engine/common/index'

const MiB = 1024 * 1024
const GiB = 1024 * MiB

describe('the collector heap size (engine.heap_mb)', () => {
  test('automatic: a sixty-fourth of the machine, between 256 MiB and 1 GiB; a setting wins', () => {
    expect(heapRamBytes(0, 24 * GiB)).toBe(384 * MiB)
    expect(heapRamBytes(0, 4 * GiB)).toBe(256 * MiB)
    expect(heapRamBytes(0, 256 * GiB)).toBe(GiB)
    expect(heapRamBytes(300, 24 * GiB)).toBe(300 * MiB)
  })

  const calls: { file: string; args: string[]; env: Record<string, string | undefined> }[] = []
  const restart = (argv: string[], execArgv: string[] = []) => ({
    execve: (file: string, args: string[], env: Record<string, string | undefined>) => {
      calls.push({ file, args, env })
    },
    execPath: argv[1]!.startsWith('/$bunfs/') ? '/opt/engram' : '/usr/bin/bun',
    argv,
    execArgv,
  })

  test('a server started without it starts again, the same command with the variable set', () => {
    calls.length = 0
    const env = { PATH: '/bin', ENGRAM_PORT: '0' }
    sizeHeap(
      { heap_mb: 0 } as never,
      env,
      restart(['bun', '/$bunfs/root/engram', 'serve', '--port', '9']),
      () => 24 * GiB,
    )
    expect(calls).toEqual([
      {
        file: '/opt/engram',
        args: ['/opt/engram', 'serve', '--port', '9'],
        env: {
          PATH: '/bin',
          ENGRAM_PORT: '0',
          [HEAP_VARIABLE]: String(384 * MiB),
          [GROWTH_VARIABLE]: HEAP_GROWTH,
          [EDEN_RATIO_VARIABLE]: edenRatio(Number(HEAP_GROWTH)),
        },
      },
    ])
    calls.length = 0
    sizeHeap(
      { heap_mb: 300 } as never,
      env,
      restart(['/usr/bin/bun', '/srv/src/main.ts', 'serve'], ['--smol']),
    )
    expect(calls.map((c) => [c.file, c.args, c.env[HEAP_VARIABLE]])).toEqual([
      ['/usr/bin/bun', ['/usr/bin/bun', '--smol', '/srv/src/main.ts', 'serve'], String(300 * MiB)],
    ])
    // An operator's own growth stands, with the young generation's share that goes with it; their
    // own share stands too.
    calls.length = 0
    for (const env of [{ [GROWTH_VARIABLE]: '1.4' }, { [EDEN_RATIO_VARIABLE]: '0.3' }]) {
      sizeHeap({ heap_mb: 0 } as never, env, restart(['bun', '/$bunfs/root/engram']), () => GiB)
    }
    expect(calls.map((c) => [c.env[GROWTH_VARIABLE], c.env[EDEN_RATIO_VARIABLE]])).toEqual([
      ['1.4', edenRatio(1.4)],
      [HEAP_GROWTH, '0.3'],
    ])
  })

  test("the young generation's share leaves a heap grown by its growth room for young collections alone", () => {
    // A full collection follows a young one when the room left for young objects is under the share:
    // a heap just grown by `g` leaves (g - 1) / g of itself, so the share must be below that.
    for (const g of [1.1, 1.3, 1.45]) {
      expect(Number(edenRatio(g))).toBeLessThan((g - 1) / g)
      expect(Number(edenRatio(g))).toBeCloseTo((g - 1) / (g + 0.05), 10)
    }
    // JavaScriptCore's own third when the growth leaves more than that, or is not a growth.
    for (const g of [1.6, 2, Number.NaN, 1, 0.5]) expect(Number(edenRatio(g))).toBeCloseTo(1 / 3, 10)
  })

  test("an operator's own value stands: no restart", () => {
    calls.length = 0
    sizeHeap(
      { heap_mb: 0 } as never,
      { [HEAP_VARIABLE]: '999' },
      restart(['bun', '/$bunfs/root/engram', 'serve']),
    )
    expect(calls).toEqual([])
  })

  test('a restart that cannot happen leaves the server starting as it is', () => {
    const failing = {
      ...restart(['bun', '/$bunfs/root/engram']),
      execve: () => {
        throw new Error('ENOSYS')
      },
    }
    expect(() => sizeHeap({ heap_mb: 0 } as never, {}, failing, () => GiB)).not.toThrow()
    expect(restartCommand(failing)).toEqual(['/opt/engram'])
  })
})

describe('the collections JavaScriptCore runs with the variables a server restarts with', () => {
  // A live set, then garbage that dies young: the collector's log (BUN_JSC_logGC) names each
  // collection. The variables are the ones sizeHeap restarts a server with (heap_mb 384).
  const script = `
    const live = []
    for (let i = 0; i < 300000; i++) live.push({ i, s: 'item ' + i })
    console.error('=== young garbage')
    let made = 0
    for (let round = 0; round < 80000; round++) {
      const garbage = []
      for (let i = 0; i < 100; i++) garbage.push({ round, i, s: 'g ' + i })
      made += garbage.length
    }
    console.log(made + live.length)`
  const restartEnv = () => {
    let env: Record<string, string | undefined> = {}
    sizeHeap(
      { heap_mb: 384 } as never,
      {},
      { execve: (_f, _a, e) => (env = e), execPath: 'bun', argv: ['bun', 'x'], execArgv: [] },
    )
    return env
  }
  const collections = (env: Record<string, string | undefined>) => {
    const run = Bun.spawnSync([process.execPath, '-e', script], {
      env: { PATH: process.env.PATH, ...env, BUN_JSC_logGC: '1' },
    })
    expect(run.exitCode).toBe(0)
    const log = run.stderr.toString()
    const churn = log.slice(log.indexOf('=== young garbage'))
    return {
      young: churn.match(/=> EdenCollection/g)?.length ?? 0,
      full: churn.match(/=> FullCollection/g)?.length ?? 0,
    }
  }

  test('young collections are not each followed by a full one (they were with the growth alone)', () => {
    const env = restartEnv()
    expect(env[GROWTH_VARIABLE]).toBe(HEAP_GROWTH)
    const ours = collections(env)
    expect(ours.young).toBeGreaterThanOrEqual(20)
    expect(ours.full).toBeLessThanOrEqual(2)
    // The growth alone, JavaScriptCore's share: a full collection after every young one.
    const alone = collections({ ...env, [EDEN_RATIO_VARIABLE]: undefined })
    expect(alone.young).toBeGreaterThanOrEqual(10)
    expect(alone.full).toBeGreaterThanOrEqual(alone.young - 1)
  })
})
