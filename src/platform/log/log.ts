/** Severity levels in order; `silent` writes nothing. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent'
const rank: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 99 }

/** Structured fields of a log line. Never put secrets here. */
export type LogFields = Record<string, unknown>

/** A structured logger: one JSON object a line. */
export interface Logger {
  debug(msg: string, fields?: LogFields): void
  info(msg: string, fields?: LogFields): void
  warn(msg: string, fields?: LogFields): void
  error(msg: string, fields?: LogFields): void
}

/** A JSON-lines logger writing to `write` (stdout by default). */
export function createLogger(
  level: LogLevel,
  write: (line: string) => void = (l) => process.stdout.write(l),
): Logger {
  const min = rank[level]
  const emit = (lvl: Exclude<LogLevel, 'silent'>, msg: string, fields?: LogFields) => {
    if (rank[lvl] < min) return
    write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, msg, ...fields })}\n`)
  }
  return {
    debug: (m, f) => emit('debug', m, f),
    info: (m, f) => emit('info', m, f),
    warn: (m, f) => emit('warn', m, f),
    error: (m, f) => emit('error', m, f),
  }
}

/** A logger that keeps its lines in memory; for tests that assert on logs. */
export function memoryLogger(): Logger & { lines: LogFields[] } {
  const lines: LogFields[] = []
  const logger = createLogger('debug', (l) => {
    lines.push(JSON.parse(l) as LogFields)
  })
  return Object.assign(logger, { lines })
}
