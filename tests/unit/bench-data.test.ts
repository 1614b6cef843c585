import { describe, expect, test } from 'bun:test'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { MISSING_DATA_EXIT, SHARED_SHOWN } from '../../bench/lib/shared-data'

const ROOT = resolve(import.meta.dir, '../..')

describe('benchmark data beside the checkout', () => {
  test('a benchmark whose data is missing says what it needs and where, in one line, and fails', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'engram-no-shared-'))
    try {
      const script = `import { requireData, SHARED_SHOWN } from ${JSON.stringify(join(ROOT, 'bench/lib/shared-data.ts'))}
requireData(${JSON.stringify(empty)}, SHARED_SHOWN, 'squad-dev/questions.jsonl', 'the SQuAD questions')
console.log('went on')`
      const proc = Bun.spawn([process.execPath, '-e', script], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' })
      const [code, out, err] = await Promise.all([
        proc.exited,
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
      ])
      expect(code).toBe(MISSING_DATA_EXIT)
      expect(out).toBe('')
      expect(err.trimEnd().split('\n')).toHaveLength(1)
      expect(err).toContain(`needs the SQuAD questions at ${SHARED_SHOWN}/squad-dev/questions.jsonl`)
      expect(err).toContain(join(empty, 'squad-dev/questions.jsonl'))
      expect(err).not.toContain('    at ')
    } finally {
      rmSync(empty, { recursive: true, force: true })
    }
  })

  test('the benchmarks that read the shared folder go through the check', async () => {
    for (const file of ['bench/quality.ts', 'bench/lib/harness.ts']) {
      const text = await Bun.file(join(ROOT, file)).text()
      expect(text).toContain("sharedData('squad-dev")
    }
  })
})
