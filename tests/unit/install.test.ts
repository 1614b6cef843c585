import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'

// `npm install` on the Node version the README names must be clean: every package of the locked
// tree (what `npm install` installs) accepts that version, or npm prints EBADENGINE warnings.
const ROOT = resolve(import.meta.dir, '../..')
const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  engines: { node: string }
  allowScripts?: Record<string, boolean>
}
const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; hasInstallScript?: boolean }>
}

/** The Node version the README's quick start names, as a full semver version ("20.19" → "20.19.0"). */
function namedNode(): string {
  const m = /with Node\.js (\d+(?:\.\d+){0,2})/.exec(readme)
  if (!m) throw new Error('the README names no Node.js version')
  const parts = m[1]!.split('.')
  while (parts.length < 3) parts.push('0')
  return parts.join('.')
}

describe('npm install on the Node version the README names', () => {
  test('package.json accepts that version', () => {
    expect(Bun.semver.satisfies(namedNode(), pkg.engines.node)).toBe(true)
  })

  test('every locked package accepts it (no engine warnings)', () => {
    const node = namedNode()
    const refused = Object.entries(lock.packages)
      .filter(([path]) => path !== '')
      .map(([path, p]) => ({ path, range: Array.isArray(p.engines) ? undefined : p.engines?.node }))
      .filter(({ range }) => range !== undefined && !Bun.semver.satisfies(node, range))
      .map(({ path, range }) => `${path} needs node ${range}`)
    expect(refused).toEqual([])
  })

  test('every dependency with an install script has been reviewed in allowScripts (no npm notice)', () => {
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length))
    expect(withScripts.length).toBeGreaterThan(0)
    const unreviewed = withScripts.filter((name) => typeof pkg.allowScripts?.[name] !== 'boolean')
    expect(unreviewed).toEqual([])
  })
})
