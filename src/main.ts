#!/usr/bin/env bun
import { VERSION } from './app'
import { mcpCommand } from './cli/mcp'
import { pushCommand } from './cli/push'
import { configFromProcess, openRuntime } from './cli/runtime'
import { serve } from './cli/serve'
import { EXTRACT_CHILD_COMMAND } from './features/ingest/extract/extract.sandbox'
import { runExtractChild } from './features/ingest/extract/extract.sandbox-child'
import { ConfigError } from './platform/config/config.load'

const USAGE = `engram ${VERSION}

Usage: engram [command] [options]

Commands:
  serve        Run the HTTP server (default)
  migrate      Apply database migrations and exit
  push DIR     Sync a folder into a document base (engram push --help)
  mcp          Serve the agent tools over stdio to a desktop agent (engram mcp --help)
  version      Print the version
  help         Print this help

Options (override configuration and ENGRAM_* variables):
  --port N       Listen port
  --host ADDR    Listen address
  --data DIR     Data directory

Configuration: config/default.toml or the file named by ENGRAM_CONFIG, then ENGRAM_* variables.`

/** Maps command-line flags onto the environment names the config module reads. */
function flagsToEnv(args: string[]): { command: string; env: Record<string, string> } {
  const env: Record<string, string> = {}
  const flags: Record<string, string> = {
    '--port': 'ENGRAM_PORT',
    '--host': 'ENGRAM_HOST',
    '--data': 'ENGRAM_DATA_DIR',
  }
  let command = 'serve'
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!
    const [flag, inline] = a.split('=', 2) as [string, string | undefined]
    const name = flags[flag]
    if (name) {
      const value = inline ?? args[++i]
      if (value === undefined) throw new Error(`${flag} needs a value`)
      env[name] = value
    } else if (a === '--help' || a === '-h') command = 'help'
    else if (a === '--version' || a === '-v') command = 'version'
    else if (!a.startsWith('-') && i === 0) command = a
    else throw new Error(`Unknown argument: ${a}`)
  }
  return { command, env }
}

async function main(argv: string[]): Promise<void> {
  // The compiled executable is also its own document-extraction child process (extract.sandbox.ts).
  if (argv[0] === EXTRACT_CHILD_COMMAND) return runExtractChild()
  // A client of a running server: it needs no configuration, database or data dir.
  if (argv[0] === 'push') {
    process.exitCode = await pushCommand(argv.slice(1), process.env)
    return
  }
  // Speaks MCP on stdin and stdout, so it parses its own flags and never prints to stdout.
  if (argv[0] === 'mcp') {
    await mcpCommand(argv.slice(1), process.env)
    process.exit(0)
  }
  const { command, env } = flagsToEnv(argv)
  if (command === 'help') return void console.log(USAGE)
  if (command === 'version') return void console.log(VERSION)
  const config = configFromProcess({ ...process.env, ...env })
  switch (command) {
    case 'serve':
      return serve(config)
    case 'migrate': {
      const rt = openRuntime(config)
      console.log(rt.applied.length ? `applied: ${rt.applied.join(', ')}` : 'database is up to date')
      rt.db.$client.close()
      return
    }
    default:
      throw new Error(`Unknown command: ${command}\n\n${USAGE}`)
  }
}

main(process.argv.slice(2)).catch((e) => {
  console.error(e instanceof ConfigError ? e.message : `engram: ${(e as Error).message}`)
  process.exit(e instanceof ConfigError ? 78 : ((e as { exitCode?: number }).exitCode ?? 1))
})
