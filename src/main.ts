#!/usr/bin/env bun
import { parseFlags } from './cli/args'
import { EXTRACT_CHILD_COMMAND } from './features/ingest/extract/extract.sandbox-protocol'
import { ConfigError } from './platform/config/config.load'
import { VERSION } from './version'

// Each command's module is imported when that command runs, not before: the extraction child (this
// same executable, started for every busy extraction slot) and a one-shot command load only their
// own code, and the server does not hold the code of the commands it is not running.

const USAGE = `engram ${VERSION}

Usage: engram [command] [options]

Commands:
  serve        Run the HTTP server (default)
  migrate      Apply database migrations and exit
  replicas     List the processes running on the database (the replicas registry)
  export-data  Copy the data dir's state into PostgreSQL (ENGRAM_DATABASE_URL) and S3
  import-data  Copy it back from PostgreSQL and S3 into the data dir
  push DIR     Sync a folder into a document base (engram push --help)
  onboard ID   Start onboarding a document base and follow it (engram onboard --help)
  mcp          Serve the agent tools over stdio to a desktop agent (engram mcp --help)
  allowlist ID Show a workspace's IP allowlist, or switch it off (engram allowlist --help)
  plan         List the plans, or move a workspace to one (engram plan --help)
  version      Print the version
  help         Print this help

Options (override configuration and ENGRAM_* variables):
  --port N       Listen port
  --host ADDR    Listen address
  --data DIR     Data directory

Configuration: config/default.toml or the file named by ENGRAM_CONFIG, then ENGRAM_* variables.`

/** The global flags; --port, --host and --data override configuration as ENGRAM_* variables would. */
const FLAGS = {
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    data: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean', short: 'v' },
  },
  positionals: 1,
} as const

/** The environment name each value-taking flag stands for. */
const FLAG_ENV = { port: 'ENGRAM_PORT', host: 'ENGRAM_HOST', data: 'ENGRAM_DATA_DIR' } as const

/** Reads the command (default `serve`) and maps its flags onto the environment names config reads. */
function parseCommand(args: string[]): { command: string; env: Record<string, string> } {
  const { values, positionals } = parseFlags(args, FLAGS, USAGE, 1)
  const env: Record<string, string> = {}
  for (const [flag, name] of Object.entries(FLAG_ENV)) {
    const value = values[flag as keyof typeof FLAG_ENV]
    if (value !== undefined) env[name] = value
  }
  const command = values.help ? 'help' : values.version ? 'version' : (positionals[0] ?? 'serve')
  return { command, env }
}

async function main(argv: string[]): Promise<void> {
  // The compiled executable is also its own document-extraction child process (extract.sandbox.ts).
  if (argv[0] === EXTRACT_CHILD_COMMAND)
    return (await import('./features/ingest/extract/extract.sandbox-child')).runExtractChild()
  // A client of a running server: it needs no configuration, database or data dir.
  if (argv[0] === 'push') {
    process.exitCode = await (await import('./cli/push')).pushCommand(argv.slice(1), process.env)
    return
  }
  if (argv[0] === 'allowlist') {
    process.exitCode = await (await import('./cli/allowlist')).allowlistCommand(argv.slice(1), process.env)
    return
  }
  if (argv[0] === 'plan') {
    process.exitCode = await (await import('./cli/plan')).planCommand(argv.slice(1), process.env)
    return
  }
  if (argv[0] === 'onboard') {
    process.exitCode = await (await import('./cli/onboard')).onboardCommand(argv.slice(1), process.env)
    return
  }
  // Speaks MCP on stdin and stdout, so it parses its own flags and never prints to stdout.
  if (argv[0] === 'mcp') {
    await (await import('./cli/mcp')).mcpCommand(argv.slice(1), process.env)
    process.exit(0)
  }
  const { command, env } = parseCommand(argv)
  if (command === 'help') return void console.log(USAGE)
  if (command === 'version') return void console.log(VERSION)
  const { configFromProcess } = await import('./cli/runtime')
  const config = configFromProcess({ ...process.env, ...env })
  switch (command) {
    case 'serve': {
      // Starts this process again with the collector sized from engine.heap_mb, unless it is.
      const { sizeHeap } = await import('./cli/heap-size')
      sizeHeap(config.engine)
      const { serve } = await import('./cli/serve')
      return serve(config)
    }
    case 'migrate':
      return (await import('./cli/migrate')).migrateCommand(config)
    case 'replicas':
      return (await import('./cli/replicas')).replicasCommand(config)
    case 'export-data':
    case 'import-data': {
      const [{ dataCopyCommand }, { terminalIo }] = await Promise.all([
        import('./cli/data-copy'),
        import('./cli/io'),
      ])
      const to = command === 'export-data' ? 'postgres' : 'sqlite'
      process.exitCode = await dataCopyCommand(config, to, terminalIo())
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
