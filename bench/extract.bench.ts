// Text extraction speed on the real documents in tests/fixtures/data/docs: per-file time, input MB/s,
// extracted characters per second, sections, and the process's RSS after each file; then the same
// file through the server's path, a capped child process (`ExtractSandbox`, default budget), with
// its time and the child's peak memory. Prints, never asserts. `npm run bench extract` runs it alone.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { ExtractSandbox } from '../src/features/ingest/extract/extract.sandbox.ts'
import { extractText, isExtractError } from '../src/features/ingest/extract/extract.ts'
import { FIXTURE_DOCS as DOCS } from '../tests/helpers/fixture-data.ts'

const files = readdirSync(DOCS, { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .flatMap((d) => readdirSync(join(DOCS, d.name)).map((f) => join(d.name, f)))
  .sort((a, b) => statSync(join(DOCS, b)).size - statSync(join(DOCS, a)).size)

const mb = (n: number) => n / 1024 / 1024
const pad = (s: string | number, n: number) => String(s).padStart(n)
let peakRss = process.memoryUsage().rss
let totalBytes = 0
let totalMs = 0
let totalChildMs = 0
let childPeak = 0
const sandbox = new ExtractSandbox({ memoryMb: 512, onMeasured: (peak) => (childPeak = peak) })
// The first child's start (about 0.4 s) is paid once by a server; it is not counted per file.
await sandbox.extract({ bytes: new TextEncoder().encode('warm up the child'), filename: 'warm.txt' })
console.log(
  `${'file'.padEnd(62)} ${pad('MB', 6)} ${pad('ms', 7)} ${pad('MB/s', 6)} ${pad('chars', 9)} ${pad('kchar/s', 8)} ${pad('pages', 5)} ${pad('sect', 4)} ${pad('RSS MB', 6)} ${pad('child ms', 8)} ${pad('child MB', 8)}  outcome`,
)
for (const file of files) {
  const bytes = new Uint8Array(readFileSync(join(DOCS, file)))
  // Read before extracting: a PDF's bytes are transferred to the reader thread (empty afterwards).
  const size = bytes.length
  const started = performance.now()
  let outcome = 'ok'
  let chars = 0
  let pages = ''
  let sections = 0
  try {
    const r = await extractText({ bytes, filename: file })
    chars = r.text.length
    pages = r.pages === undefined ? '' : String(r.pages)
    sections = r.sections.length
  } catch (e) {
    outcome = isExtractError(e) ? e.code : `crash: ${(e as Error).message}`
  }
  const ms = performance.now() - started
  const childStarted = performance.now()
  let childOutcome = 'ok'
  try {
    await sandbox.extract({ bytes: new Uint8Array(readFileSync(join(DOCS, file))), filename: file })
  } catch (e) {
    childOutcome = isExtractError(e) ? e.code : `crash: ${(e as Error).message}`
  }
  const childMs = performance.now() - childStarted
  totalChildMs += childMs
  if (childOutcome !== outcome) outcome += ` (child: ${childOutcome})`
  const rss = process.memoryUsage().rss
  peakRss = Math.max(peakRss, rss)
  totalBytes += size
  totalMs += ms
  console.log(
    `${file.padEnd(62)} ${pad(mb(size).toFixed(2), 6)} ${pad(ms.toFixed(0), 7)} ${pad((mb(size) / (ms / 1000)).toFixed(1), 6)} ` +
      `${pad(chars, 9)} ${pad((chars / ms).toFixed(0), 8)} ${pad(pages, 5)} ${pad(sections, 4)} ${pad(mb(rss).toFixed(0), 6)} ${pad(childMs.toFixed(0), 8)} ${pad(mb(childPeak).toFixed(0), 8)}  ${outcome}`,
  )
}
console.log(
  `\n${files.length} files, ${mb(totalBytes).toFixed(1)} MB in ${(totalMs / 1000).toFixed(2)} s ` +
    `(${(mb(totalBytes) / (totalMs / 1000)).toFixed(1)} MB/s, ${(files.length / (totalMs / 1000)).toFixed(1)} files/s); peak RSS ${mb(peakRss).toFixed(0)} MB\n` +
    `through the capped child process: ${(totalChildMs / 1000).toFixed(2)} s ` +
    `(${(mb(totalBytes) / (totalChildMs / 1000)).toFixed(1)} MB/s, ${(files.length / (totalChildMs / 1000)).toFixed(1)} files/s)`,
)
sandbox.close()
