/**
 * Where a worker thread's script is: beside the calling module in a checkout; inside the compiled
 * executable, at its path in the checkout (`src/...`), where `bun build --compile --root .` puts
 * every extra entry point (scripts/build.ts lists them). A build without the entry makes the worker
 * fail to start.
 */
export function workerScriptPath(moduleUrl: string, fileName: string, pathBelowSrc: string): string {
  if (moduleUrl.includes('/$bunfs/')) return `/$bunfs/root/src/${pathBelowSrc}`
  return new URL(`./${fileName}`, moduleUrl).href
}
