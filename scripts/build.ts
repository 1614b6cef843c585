// `npm run build`: compiles the whole product into one executable, dist/engram. Migrations are
// imported as text, so they are embedded in the binary; the web console is bundled first and its
// files embedded packed in one file (src/features/console/console.assets.ts reads it back).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { packConsole } from '../src/features/console/console.assets'
import { buildConsole } from '../src/features/console/console.build'

const out = process.argv[2] ?? 'dist/engram'
const work = mkdtempSync(join(tmpdir(), 'engram-build-'))
const pack = join(work, 'console.pack')
writeFileSync(pack, packConsole(await buildConsole()))
const result = Bun.spawnSync(
  [
    'bun',
    'build',
    '--compile',
    '--minify-syntax',
    '--minify-whitespace',
    '--sourcemap',
    // Code loaded by a dynamic import() goes into chunks of its own, read when first imported: an
    // idle server does not hold the code of what it has not used (the KMS SDK, ...).
    '--splitting',
    // Entry points keep their paths below the checkout (worker threads find their scripts there:
    // src/platform/concurrency/worker-path.ts), wherever the console's pack is written.
    '--root',
    '.',
    'src/main.ts',
    // A second entry point: the scale test's load worker thread, loaded from inside the binary.
    'src/features/scale/lib/load-worker.ts',
    // A third: the PDF reader's thread, so a large PDF does not stall the server's event loop.
    'src/features/ingest/extract/extract.pdf-worker.ts',
    // A fourth: the cartridge compiler's threads, so onboarding runs beside the event loop.
    'src/features/engine/cart/compile-worker.ts',
    // A fifth: the built-in sentence encoder's thread (its model's files are embedded with it).
    'src/features/engine/support/encoder-worker.ts',
    // Not code: the console's files, embedded as they are.
    pack,
    '--outfile',
    out,
  ],
  { stdout: 'inherit', stderr: 'inherit' },
)
rmSync(work, { recursive: true, force: true })
if (result.exitCode !== 0) process.exit(result.exitCode ?? 1)
console.log(`built ${out}`)
