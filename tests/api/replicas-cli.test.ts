import { afterEach, describe, expect, test } from 'bun:test'
import { resolve } from 'node:path'
import pkg from '../../package.json'
import { formatReplicas } from '../../src/cli/replicas'
import { ReplicasRepo } from '../../src/platform/replicas/replicas.repo'
import { type TestApp, testApp } from '../helpers/app'

// The replicas registry as the runtime keeps it and the operator reads it (issue 40): a process that
// runs events or jobs has its row from its start to its stop, and `engram replicas` lists it, on
// whichever engine the app runs (the PostgreSQL pass runs this file on PostgreSQL).

const ROOT = resolve(import.meta.dir, '../..')
const apps: TestApp[] = []
afterEach(async () => {
  for (const t of apps.splice(0)) {
    await t.stop()
    t.close()
  }
})

/** Runs `engram replicas` on the app's data dir and database; its exit status and output. */
async function replicasCli(t: TestApp) {
  const env: Record<string, string> = { PATH: Bun.env.PATH ?? '', ENGRAM_DATA_DIR: t.dataDir }
  if (t.databaseUrl) env.ENGRAM_DATABASE_URL = t.databaseUrl
  const proc = Bun.spawn([process.execPath, 'run', 'src/main.ts', 'replicas'], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
    env,
  })
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ])
  return { code, out, err }
}

/** Waits until `check` holds (the registry's first stamp runs in the background of `start`). */
async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(10)
  }
}

describe('the replicas registry of a running app', () => {
  test('a started app has its row until it stops, and engram replicas lists it', async () => {
    const t = testApp()
    apps.push(t)
    const repo = new ReplicasRepo(t.store, t.clock)
    expect(await repo.list()).toEqual([])
    await t.start({ events: true })
    await until(async () => (await repo.list()).length === 1, 'the row to be written')
    const [row] = await repo.list()
    const started = t.clock.now().getTime()
    expect(row).toMatchObject({ pid: process.pid, build: pkg.version, startedAt: started, seenAt: started })
    expect(row!.owner).toStartWith(`proc_${process.pid}_`)

    const listed = await replicasCli(t)
    expect(listed.err).toBe('')
    expect(listed.code).toBe(0)
    const [header, line, ...rest] = listed.out.trimEnd().split('\n')
    expect(header!.split(/\s+/)).toEqual(['OWNER', 'HOST', 'PID', 'BUILD', 'STARTED', 'SEEN'])
    expect(line!.split(/\s+/).slice(0, 5)).toEqual([
      row!.owner,
      row!.host,
      String(process.pid),
      pkg.version,
      new Date(started).toISOString(),
    ])
    expect(rest).toEqual([])

    apps.splice(0)
    await t.stop()
    expect(await repo.list()).toEqual([])
    expect((await replicasCli(t)).out.trim()).toBe('no replica is running on this database')
    t.close()
  }, 60_000)

  test('the listing says how long ago each process stamped its row', () => {
    const row = { owner: 'proc_1_w_a', host: 'h1', pid: 1, build: '1.0.0', startedAt: 0, seenAt: 5_000 }
    const text = formatReplicas([row, { ...row, owner: 'proc_22_w_bb', pid: 22, seenAt: 9_400 }], 12_000)
    expect(text.split('\n')).toEqual([
      'OWNER         HOST  PID  BUILD  STARTED                   SEEN',
      'proc_1_w_a    h1    1    1.0.0  1970-01-01T00:00:00.000Z  7s ago',
      'proc_22_w_bb  h1    22   1.0.0  1970-01-01T00:00:00.000Z  3s ago',
    ])
  })
})
