// `npm run build`: compiles the whole product into one executable, dist/engram. Migrations (and,
// later, the web UI) are imported as text, so they are embedded in the binary.
const out = process.argv[2] ?? 'dist/engram'
const result = Bun.spawnSync(
  [
    'bun',
    'build',
    '--compile',
    '--minify-syntax',
    '--minify-whitespace',
    '--sourcemap',
    'src/main.ts',
    // A second entry point: the scale test's load worker thread, loaded from inside the binary.
    'src/features/scale/lib/load-worker.ts',
    // A third: the PDF reader's thread, so a large PDF does not stall the server's event loop.
    'src/features/ingest/extract/extract.pdf-worker.ts',
    // A fourth: the cartridge compiler's threads, so onboarding runs beside the event loop.
    'src/features/engine/lib/compile-worker.ts',
    '--outfile',
    out,
  ],
  { stdout: 'inherit', stderr: 'inherit' },
)
if (result.exitCode !== 0) process.exit(result.exitCode ?? 1)
console.log(`built ${out}`)
