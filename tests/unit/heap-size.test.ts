import { describe, expect, test } from 'bun:test'
import {
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
    // An operator's own growth stands.
    calls.length = 0
    sizeHeap(
      { heap_mb: 0 } as never,
      { [GROWTH_VARIABLE]: '1.8' },
      restart(['bun', '/$bunfs/root/engram']),
      () => GiB,
    )
    expect(calls.map((c) => c.env[GROWTH_VARIABLE])).toEqual(['1.8'])
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
