import { describe, expect, test } from 'bun:test'
import { readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { composedFeatures, forwardReferences } from '../helpers/composition'

// Issue 33: the composition root is the list of features in order. app.ts stays short, every
// feature of src/features is in it once, and nothing in it reaches a feature built later (no
// forward closures): a factory is given only what is above it, so who depends on whom reads down.

const ROOT = resolve(import.meta.dir, '../..')
const APP = readFileSync(join(ROOT, 'src/app.ts'), 'utf8')
const FOLDERS = readdirSync(join(ROOT, 'src/features'), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name)
  .sort()

describe('the composition root', () => {
  test('src/app.ts is under 120 lines', () => {
    expect(APP.trimEnd().split('\n').length).toBeLessThan(120)
  })

  test('every feature folder is built in app.ts, once', () => {
    const built = composedFeatures(APP).map((f) => f.name)
    expect([...built].sort()).toEqual(FOLDERS)
  })

  test('no name in app.ts is read before its declaration (no closure reaches a feature built later)', () => {
    expect(forwardReferences(APP)).toEqual([])
  })

  test('a factory is given only features built above it', () => {
    const order = composedFeatures(APP).map((f) => f.name)
    const later = composedFeatures(APP).flatMap((f) =>
      f.uses.filter((u) => order.indexOf(u) > order.indexOf(f.name)).map((u) => `${f.name} uses ${u}`),
    )
    expect(later).toEqual([])
  })
})

describe('the checks above catch what they are for', () => {
  test('a closure that refers to a feature built later is a forward reference', () => {
    const bad = `export function features(p) {
  const corpora = corporaFeature(p, { buildRunning: (ws, id) => onboarding.service.inFlight(ws, id) })
  const onboarding = onboardingFeature(p, { corpora: corpora.service })
  return [corpora, onboarding]
}`
    expect(forwardReferences(bad)).toEqual([{ name: 'onboarding', line: 2 }])
  })

  test('a mutable variable set later and read by an earlier closure is a forward reference', () => {
    const bad = `const scale = scaleFeature({ selfUrl: () => selfUrl })
let selfUrl = null`
    expect(forwardReferences(bad)).toEqual([{ name: 'selfUrl', line: 1 }])
  })

  test('parameters and property names of the same name are not references to a later feature', () => {
    const good = `function f(p) {
  const answers = answersFeature(p, { engine: (engine) => engine, x: p.engine })
  const engine = engineFeature(p)
  return { answers, engine }
}`
    expect(forwardReferences(good)).toEqual([])
  })

  test('what each factory is given is read from its arguments, through the services handed on', () => {
    const src = `function f(p) {
  const audit = use(auditFeature(p))
  const signIn = accountsFeature(p, { audit, secret: 's' })
  const accounts = use(signIn)
  use(membersFeature(p, { accounts, audit: audit }))
}`
    expect(composedFeatures(src)).toEqual([
      { name: 'audit', uses: [] },
      { name: 'accounts', uses: ['audit'] },
      { name: 'members', uses: ['accounts', 'audit'] },
    ])
  })
})
