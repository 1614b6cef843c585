// Writes to a database from a separate process, as `engram mcp`, a second server or the sqlite3
// shell would: what one process commits must be seen by another on its next request.

const SCRIPT = `
const { Database } = require('bun:sqlite')
const [file, sql, params] = JSON.parse(process.env.ENGRAM_TEST_WRITE)
const db = new Database(file)
db.exec('PRAGMA busy_timeout = 5000')
db.query(sql).run(...params)
db.close()
`

/** Runs one statement against `file` in a child process and waits for it to finish. */
export function writeFromAnotherProcess(file: string, sql: string, params: (string | number | null)[] = []) {
  const run = Bun.spawnSync([process.execPath, '-e', SCRIPT], {
    env: { ...process.env, ENGRAM_TEST_WRITE: JSON.stringify([file, sql, params]) },
    stderr: 'pipe',
  })
  if (run.exitCode !== 0) throw new Error(`write from another process failed: ${run.stderr.toString()}`)
}
