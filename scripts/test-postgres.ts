// `npm run test:postgres`: the test suite again with every test app's features on PostgreSQL
// (ENGRAM_TEST_DATABASE=postgres, tests/helpers/app.ts; a private cluster of the machine's own
// PostgreSQL, required), except the files tests/postgres-pending.txt lists with why they cannot run
// there yet. CI runs it after `npm test` (.ci/run). Extra arguments go to `bun test`.
import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'

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
const run = Bun.spawnSync(
  [process.execPath, 'test', '--timeout', '60000', ...process.argv.slice(2), ...files.map((f) => `./${f}`)],
  {
    cwd: root,
    env: { ...process.env, ENGRAM_TEST_DATABASE: 'postgres', ENGRAM_TEST_POSTGRES: 'required' },
    stdio: ['inherit', 'inherit', 'inherit'],
  },
)
process.exit(run.exitCode ?? 1)
