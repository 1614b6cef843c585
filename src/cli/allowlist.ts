// `engram allowlist`: the operator's view of a workspace's IP allowlist, and the break-glass that
// switches it off when every admin of the workspace is shut out (an admin can confirm a list that
// refuses their own address, and addresses change). It opens the data directory as the server does,
// so it runs on the server's host as the user the server runs as; a running server enforces the
// change on its next request (the list is read again after any commit to the database).
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { AllowlistService } from '../features/allowlist/allowlist.service'
import { WorkspacesService } from '../features/workspaces/workspaces.service'
import { Outbox } from '../platform/events/outbox'
import { createLogger } from '../platform/log/log'
import { parseFlags } from './args'
import { CliError } from './cli-error'
import { type CliEnv, type CliIo, terminalIo } from './io'
import { configFromProcess, openRuntime } from './runtime'

/** `engram allowlist` usage. */
export const ALLOWLIST_USAGE = `Usage: engram allowlist WORKSPACE [--off] [--data DIR]

Shows a workspace's IP allowlist, read from the data directory. With --off, switches the list off
(its entries are kept, for an admin to turn it on again): the break-glass for a workspace whose
admins can no longer reach the server from a listed address.

  WORKSPACE    Workspace id (ws_...)
  --off        Switch the list off; the audit log records it as the system's ip_allowlist.updated
  --data DIR   Data directory (default: ENGRAM_DATA_DIR or ./data)`

const FLAGS = {
  options: { off: { type: 'boolean', default: false }, data: { type: 'string' } },
  positionals: 1,
} as const

/** Runs `engram allowlist`; answers the exit code (2: usage, 1: no such list). */
export async function allowlistCommand(
  args: string[],
  env: CliEnv,
  io: CliIo = terminalIo(),
): Promise<number> {
  try {
    if (args.includes('--help') || args.includes('-h')) {
      io.out(ALLOWLIST_USAGE)
      return 0
    }
    const { values, positionals } = parseFlags(args, FLAGS, ALLOWLIST_USAGE, 2)
    const workspaceId = positionals[0]
    if (!workspaceId) throw new CliError(`Name the workspace (ws_...).\n\n${ALLOWLIST_USAGE}`, 2)
    return await run(
      workspaceId,
      values.off === true,
      values.data ? { ...env, ENGRAM_DATA_DIR: values.data } : env,
      io,
    )
  } catch (e) {
    io.err(`engram allowlist: ${(e as Error).message}`)
    return e instanceof CliError ? e.exitCode : 1
  }
}

async function run(workspaceId: string, off: boolean, env: CliEnv, io: CliIo): Promise<number> {
  const config = configFromProcess(env)
  const dataDir = resolve(config.data.dir)
  if (!existsSync(join(dataDir, 'engram.db'))) {
    throw new CliError(`No Engram database in ${dataDir}: pass --data DIR.`)
  }
  const rt = await openRuntime(config)
  // Logs go to stderr: stdout is the command's answer.
  const log = createLogger(config.server.log_level, (l) => process.stderr.write(l))
  try {
    const store = rt.store
    const events = new Outbox(rt.db, rt.clock, rt.random, store)
    const workspaces = new WorkspacesService(store, rt.clock, rt.random)
    const allowlist = new AllowlistService({ store, clock: rt.clock, log, events, workspaces })
    const row = off
      ? await allowlist.switchOff(workspaceId, { type: 'system', id: null })
      : await allowlist.saved(workspaceId)
    if (!row) {
      io.err(`engram allowlist: workspace ${workspaceId} has no IP allowlist (or does not exist).`)
      return 1
    }
    const cidrs = (JSON.parse(row.cidrs) as string[]).join(', ') || '(none)'
    if (off) {
      io.out(
        `${workspaceId}: IP allowlist switched off (was ${row.enabled ? 'on' : 'already off'}); entries kept: ${cidrs}`,
      )
    } else {
      io.out(`${workspaceId}: IP allowlist ${row.enabled ? 'on' : 'off'}; entries: ${cidrs}`)
    }
    return 0
  } finally {
    await rt.close()
  }
}
