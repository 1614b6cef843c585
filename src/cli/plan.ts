// `engram plan`: the operator lists the plans in force and moves a workspace to another one. It
// opens the data directory as the server does (run it on the server's host, as the server's user);
// a running server reads the workspace's plan on its next request. The move is recorded in the
// audit log as the system's `plan.changed`.
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { plansInForce } from '../features/plans/plans.feature'
import { PlansService } from '../features/plans/plans.service'
import { WorkspacesService } from '../features/workspaces/workspaces.service'
import { Outbox } from '../platform/events/outbox'
import { CliError } from './cli-error'
import { type CliEnv, type CliIo, terminalIo } from './io'
import { configFromProcess, openRuntime } from './runtime'

/** `engram plan` usage. */
export const PLAN_USAGE = `Usage: engram plan list
       engram plan set WORKSPACE PLAN [--data DIR]

  list                 The plans in force (the built-in ones or ENGRAM_PLANS_FILE's), with their caps
  set WORKSPACE PLAN   Move a workspace (ws_...) to a plan; the audit log records it as the
                       system's plan.changed
  --data DIR           Data directory (default: ENGRAM_DATA_DIR or ./data)`

/** Runs `engram plan`; answers the exit code (2: usage, 1: refused). */
export async function planCommand(args: string[], env: CliEnv, io: CliIo = terminalIo()): Promise<number> {
  try {
    if (args.includes('--help') || args.includes('-h')) {
      io.out(PLAN_USAGE)
      return 0
    }
    let parsed: ReturnType<typeof parse>
    try {
      parsed = parse(args)
    } catch (e) {
      throw new CliError(`${(e as Error).message}\n\n${PLAN_USAGE}`, 2)
    }
    const [verb, ...rest] = parsed.positionals
    const runEnv = parsed.values.data ? { ...env, ENGRAM_DATA_DIR: parsed.values.data } : env
    if (verb === 'list' && rest.length === 0) return list(runEnv, io)
    if (verb === 'set' && rest.length === 2)
      return await set(rest[0] as string, rest[1] as string, runEnv, io)
    throw new CliError(`Say "list" or "set WORKSPACE PLAN".\n\n${PLAN_USAGE}`, 2)
  } catch (e) {
    io.err(`engram plan: ${(e as Error).message}`)
    return e instanceof CliError ? e.exitCode : 1
  }
}

function parse(args: string[]) {
  return parseArgs({ args, options: { data: { type: 'string' } }, allowPositionals: true, strict: true })
}

function list(env: CliEnv, io: CliIo): number {
  const cap = (n: number | null) => (n === null ? 'unlimited' : String(n))
  for (const p of plansInForce(configFromProcess(env))) {
    const caps = Object.entries(p.caps)
      .map(([k, v]) => `${k}=${cap(v)}`)
      .join(' ')
    io.out(`${p.id}\t${p.name}\t${p.prices.month}/${p.prices.year} ${p.prices.currency}\t${caps}`)
  }
  return 0
}

async function set(workspaceId: string, planId: string, env: CliEnv, io: CliIo): Promise<number> {
  const config = configFromProcess(env)
  // The plans first: a bad plans file is reported before the data directory is touched.
  const plans = plansInForce(config)
  const dataDir = resolve(config.data.dir)
  if (!existsSync(join(dataDir, 'engram.db'))) {
    throw new CliError(`No Engram database in ${dataDir}: pass --data DIR.`)
  }
  const rt = await openRuntime(config)
  try {
    const store = rt.store
    const events = new Outbox(rt.db, rt.clock, rt.random, store)
    const workspaces = new WorkspacesService(store, rt.clock, rt.random)
    const service = new PlansService({ store, events, workspaces }, plans, config.accounts.default_plan)
    const r = await service.setPlan(workspaceId, planId, { type: 'system', id: null })
    if ('refused' in r) {
      io.err(
        r.refused === 'unknown_plan'
          ? `engram plan: no plan "${planId}"; the plans are ${plans.map((p) => p.id).join(', ')} (engram plan list).`
          : `engram plan: no workspace ${workspaceId}.`,
      )
      return 1
    }
    io.out(`${workspaceId}: plan ${r.from} -> ${planId}`)
    return 0
  } finally {
    await rt.close()
  }
}
