// What push does on this machine: walking and hashing the folder, a bounded pool of uploads and
// the progress bar drawn on a terminal.
import { lstat, readdir } from 'node:fs/promises'
import { join, relative, sep } from 'node:path'
import { Presets, SingleBar } from 'cli-progress'

/** Every regular file under `dir` (hidden files and folders and symbolic links are skipped). */
export async function walk(dir: string): Promise<{ abs: string; path: string; size: number }[]> {
  const out: { abs: string; path: string; size: number }[] = []
  const visit = async (d: string) => {
    const entries = await readdir(d, { withFileTypes: true })
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.name.startsWith('.')) continue
      const abs = join(d, e.name)
      if (e.isDirectory()) await visit(abs)
      else if (e.isFile()) {
        const st = await lstat(abs)
        out.push({ abs, path: relative(dir, abs).split(sep).join('/'), size: st.size })
      }
    }
  }
  await visit(dir)
  return out
}

/** SHA-256 of a file, streamed. */
export async function hashFile(abs: string): Promise<string> {
  const hasher = new Bun.CryptoHasher('sha256')
  const reader = Bun.file(abs).stream().getReader()
  for (let r = await reader.read(); !r.done; r = await reader.read()) hasher.update(r.value)
  return hasher.digest('hex')
}

/** Runs `work` over `items` with at most `n` at once. */
export async function pool<T>(items: T[], n: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0
  const lanes = Array.from({ length: Math.min(n, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!)
  })
  await Promise.all(lanes)
}

/** A progress bar on a terminal, nothing elsewhere; `unit` names what is counted. */
export function progress(
  io: { tty: boolean },
  quiet: boolean,
  label: string,
  total: number,
  unit = label === 'uploading' ? 'bytes' : 'files',
) {
  if (!io.tty || quiet || total === 0) return { tick: (_n = 1) => {}, stop: () => {} }
  const bar = new SingleBar(
    {
      format: `${label.padEnd(10)} [{bar}] {value}/{total} {unit}`,
      stream: process.stderr,
      hideCursor: true,
    },
    Presets.shades_classic,
  )
  bar.start(total, 0, { unit })
  return { tick: (n = 1) => bar.increment(n), stop: () => bar.stop() }
}
