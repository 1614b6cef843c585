// Memory bombs (issue 18): peak resident memory of this process (the server) and of each
// extraction child while generated bombs are extracted two at a time under the default budget.
// Prints, never asserts. `npm run bench bombs`; `bun run bench/bombs.bench.ts in-process` reads
// the same files in this process instead, as the server did before the budget (takes gigabytes:
// two 1 GiB Office bombs passed 10 GB within two minutes and were stopped by hand).
import { readFileSync, writeFileSync } from 'node:fs'
import { ExtractSandbox } from '../src/features/ingest/extract/extract.sandbox.ts'
import { extractText, isExtractError } from '../src/features/ingest/extract/extract.ts'
import { docxBomb, nestedHtml, pdfBomb, pptxBomb, xlsxBomb } from '../tests/helpers/bombs.ts'

const MB = 1024 * 1024
const BUDGET = 512
const args = process.argv.slice(2)
const inProcess = args.includes('in-process')
// Other arguments pick bombs by name (`bun run bench/bombs.bench.ts in-process xlsx-480mb`).
const only = args.filter((a) => a !== 'in-process')
const mb = (n: number) => (n / MB).toFixed(0)

const t0 = performance.now()
const all = [
  // The issue's case: parts that expand to just under 1 GiB (refused from the zip directory).
  { filename: 'xlsx-1gib.xlsx', bytes: xlsxBomb(1000 * MB) },
  { filename: 'docx-1gib.docx', bytes: docxBomb(1000 * MB) },
  // Parts just under the budget, so they pass the zip check and are read until the cap.
  { filename: 'xlsx-480mb.xlsx', bytes: xlsxBomb(480 * MB) },
  { filename: 'pptx-480mb.pptx', bytes: pptxBomb(480 * MB) },
  { filename: 'docx-480mb.docx', bytes: docxBomb(480 * MB) },
  { filename: 'pdf-stream-2gib.pdf', bytes: pdfBomb(2048 * MB) },
  { filename: 'html-1m-divs.html', bytes: nestedHtml(1_000_000) },
  { filename: 'pptx-1gib.pptx', bytes: pptxBomb(1000 * MB) },
]
const files = all.filter((f) => only.length === 0 || only.some((o) => f.filename.includes(o)))
console.log(
  `built ${files.length} bombs in ${(performance.now() - t0).toFixed(0)} ms: ${files.map((f) => `${f.filename} ${(f.bytes.length / 1024).toFixed(0)} KB`).join(', ')}`,
)

/** The kernel's high-water mark of this process's resident memory (VmHWM), or null off Linux. */
function highWater(): number | null {
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'latin1'))?.[1]
    return kb ? Number(kb) * 1024 : null
  } catch {
    return null
  }
}

// A reader that holds the event loop (in-process mode) hides its peak from a timer: the kernel's
// mark is reset here (writing 5 to clear_refs) and read at the end.
try {
  writeFileSync('/proc/self/clear_refs', '5')
} catch {}
const childPeak = new Map<string, number>()
const sandbox = new ExtractSandbox({
  memoryMb: BUDGET,
  onMeasured: (peak, name) => childPeak.set(name, peak),
})
const start = process.memoryUsage.rss()
let peak = start
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage.rss())
}, 5)

async function one(f: { filename: string; bytes: Uint8Array }): Promise<string> {
  const began = performance.now()
  let outcome: string
  try {
    const r = inProcess ? await extractText(f) : await sandbox.extract(f)
    outcome = `read, ${r.text.length} chars`
  } catch (e) {
    outcome = isExtractError(e) ? e.code : `crash: ${(e as Error).message}`
  }
  const child = inProcess ? '' : ` child peak ${mb(childPeak.get(f.filename) ?? 0)} MB,`
  return `${f.filename.padEnd(22)} ${(performance.now() - began).toFixed(0).padStart(6)} ms,${child} ${outcome}`
}

console.log(
  `\n${inProcess ? 'in this process' : `child processes, budget ${BUDGET} MB`}, two at a time; server RSS before: ${mb(start)} MB`,
)
for (let i = 0; i < files.length; i += 2) {
  for (const line of await Promise.all(files.slice(i, i + 2).map(one))) console.log(line)
  peak = Math.max(peak, highWater() ?? 0)
  console.log(`  server RSS peak so far ${mb(peak)} MB`)
}
clearInterval(sampler)
sandbox.close()
peak = Math.max(peak, highWater() ?? 0)
console.log(`\npeak server RSS ${mb(peak)} MB (started at ${mb(start)} MB, +${mb(peak - start)} MB)`)
