// `npm run bench`: runs every bench/*.bench.ts in turn. Each prints its own figures; none asserts.
import { readdirSync } from 'node:fs'

const only = process.argv.slice(2)
const files = readdirSync('bench')
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort()
for (const f of files) {
  console.log(`\n=== ${f} ===`)
  const run = Bun.spawnSync(['bun', 'run', `bench/${f}`], { stdout: 'inherit', stderr: 'inherit' })
  if (run.exitCode !== 0) {
    console.error(`${f} failed with exit code ${run.exitCode}`)
    process.exitCode = 1
  }
}
