// `npm run test:postgres`: the test suite again with every test app's features on PostgreSQL
// (ENGRAM_TEST_DATABASE=postgres, tests/helpers/app.ts; a private cluster of the machine's own
// PostgreSQL, required) and every test app's and started binary's objects in S3, except the files
// tests/postgres-pending.txt lists with why they cannot run there yet. CI runs it after `npm test`
// (.ci/run). Extra arguments go to `bun test`.
//
// The S3 server is s3rver (npm, a devDependency) in a process of its own
// (tests/helpers/standins/s3rver-process.ts), started here for the whole pass on a free loopback
// port and stopped at its end; its endpoint goes to the tests in ENGRAM_TEST_S3_ENDPOINT, and each
// data dir gets a bucket of its own through the real ENGRAM_STORAGE=s3 settings
// (tests/helpers/test-storage.ts). A test file run alone with ENGRAM_TEST_DATABASE=postgres and no
// ENGRAM_TEST_S3_ENDPOINT starts such a server for its own process, stopped when the process ends.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import { startS3rverProcess } from '../tests/helpers/standins/s3rver-process'

const root = join(import.meta.dir, '..')
const pending = new Map<string, string>()
for (const line of readFileSync(join(root, 'tests/postgres-pending.txt'), 'utf8').split('\n')) {
  const [path, ...why] = line.split('#')
  if (path?.trim()) pending.set(path.trim(), why.join('#').trim())
}

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name)
    if (e.isDirectory()) return testFiles(path)
    return e.name.endsWith('.test.ts') ? [relative(root, path)] : []
  })
}

const all = testFiles(join(root, 'tests')).sort()
const unknown = [...pending.keys()].filter((p) => !all.includes(p))
if (unknown.length > 0) {
  console.error(`tests/postgres-pending.txt names files that do not exist: ${unknown.join(', ')}`)
  process.exit(1)
}
const files = all.filter((f) => !pending.has(f))
console.log(
  `${files.length} test files with the features on PostgreSQL; ${pending.size} pending (tests/postgres-pending.txt)`,
)
const s3 = startS3rverProcess()
console.log(`objects in S3 on s3rver at ${s3.endpoint}`)
const run = Bun.spawn(
  [process.execPath, 'test', '--timeout', '60000', ...process.argv.slice(2), ...files.map((f) => `./${f}`)],
  {
    cwd: root,
    env: {
      ...process.env,
      ENGRAM_TEST_DATABASE: 'postgres',
      ENGRAM_TEST_POSTGRES: 'required',
      ENGRAM_TEST_S3_ENDPOINT: s3.endpoint,
    },
    stdio: ['inherit', 'inherit', 'inherit'],
  },
)
const code = await run.exited
await s3.stop()
process.exit(code)
