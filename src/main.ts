#!/usr/bin/env bun
import { VERSION } from './app'
import { configFromProcess, openRuntime } from './cli/runtime'
import { serve } from './cli/serve'
import { ConfigError } from './platform/config/config.load'

const USAGE = `engram ${VERSION}

Usage: engram [command] [options]

Commands:
  serve        Run the HTTP server (default)
  migrate      Apply database migrations and exit
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
  process.exit(e instanceof ConfigError ? 78 : 1)
})
