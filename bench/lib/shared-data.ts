// The large benchmark data that is not in the repository: CI's data folder beside the checkout
// (../shared/data). Tests never read it (their files are in tests/fixtures/data); a benchmark that
// needs it says what is missing and where, in one line, instead of failing with a stack trace.
import { existsSync } from 'node:fs'
import { relative, resolve } from 'node:path'

/** CI's shared data folder beside the project. */
export const SHARED_DATA = resolve(import.meta.dir, '../../../shared/data')

/** How the folder is named to people. */
export const SHARED_SHOWN = '../shared/data'

/** Exit status of a benchmark whose data is missing (EX_NOINPUT of sysexits.h). */
export const MISSING_DATA_EXIT = 66

/** The path of `rel` under ../shared/data, or a one-line message and exit when it is missing. */
export function sharedData(rel: string, what: string): string {
  return requireData(SHARED_DATA, SHARED_SHOWN, rel, what)
}

/**
 * The path of `rel` under `root` (shown to people as `shown`); when it is missing, prints what the
 * running benchmark needs and where (one line on stderr) and exits with MISSING_DATA_EXIT.
 */
export function requireData(root: string, shown: string, rel: string, what: string): string {
  const path = resolve(root, rel)
  if (!existsSync(path)) {
    const script = relative(process.cwd(), process.argv[1] ?? 'this benchmark')
    process.stderr.write(
      `${script}: needs ${what} at ${shown}/${rel} (${path}), which is missing; ` +
        'put the shared data folder beside the checkout (see tests/fixtures/data/README.md)\n',
    )
    process.exit(MISSING_DATA_EXIT)
  }
  return path
}
