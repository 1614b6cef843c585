// `bun run bench/onboarding.profile.ts [articles|small] [runs]`: where onboarding's time goes, stage
// by stage, for the 24 squad-dev articles or for 5,000 one-paragraph files made from their
// paragraphs. The real app on a temp data dir onboards the files (POST /train to the run's end, as
// engine.bench.ts times it), then forced re-onboardings; the engine's and the store's calls are
// timed on the event loop, and the compile's stages are timed again in process on the same texts.
// Since issue 38 a run indexes text only; the cartridges follow (train_deferred): the time until
// they are all built is printed apart. Since session 21 a run's groups are chunked on the compile
// thread while the event loop writes (chunkSections) and the stored words come with the cartridges;
// since session 22 in process until the thread is free (started, its word tables read).

import {
  compileCartridge,
  encodeCartridge,
  fitCartridge,
  passageInputs,
  sectionPassages,
} from '../src/features/engine/cart/index'
import { EngineRepo } from '../src/features/engine/engine.repo'
import { Engine } from '../src/features/engine/engine.service'
import { prepareStaticVectors, staticVector } from '../src/features/engine/text/index'
import { OnboardingJobs } from '../src/features/onboarding/onboarding.jobs'
import { OnboardingService } from '../src/features/onboarding/onboarding.service'
import { LocalObjectStore } from '../src/platform/storage/local-store'
import { type Bench, onboardBase, retrain, squadArticles, startBench } from './lib/harness'
import { smallFiles } from './lib/small-files'

const corpus = process.argv[2] === 'small' ? 'small' : 'articles'
const RUNS = Number(process.argv[3] ?? 3)

// Time spent in each wrapped call, by name (event-loop time; awaited calls include their waits).
const spent = new Map<string, number>()
const calls = new Map<string, number>()
function timeMethod(proto: object, name: string, label: string): void {
  const p = proto as Record<string, (...a: unknown[]) => unknown>
  const f = p[name]
  // Older code (a side-by-side run against the code before a change) may lack the method.
  if (!f) return
  p[name] = function (this: unknown, ...args: unknown[]) {
    const t0 = performance.now()
    const add = () => {
      spent.set(label, (spent.get(label) ?? 0) + performance.now() - t0)
      calls.set(label, (calls.get(label) ?? 0) + 1)
    }
    const r = f.apply(this, args)
    if (r instanceof Promise) return r.finally(add)
    add()
    return r
  }
}
// Older code (a side-by-side run) has onboardSections; newer code indexSections, then buildDeferred.
timeMethod(Engine.prototype, 'onboardSections', 'onboardSections (awaits the compiles)')
timeMethod(Engine.prototype, 'indexSections', 'indexSections (text only: rows + FTS5, one transaction)')
timeMethod(EngineRepo.prototype, 'putSection', '  putSection (rows + FTS5 + vectors)')
timeMethod(Engine.prototype, 'chunkSections', 'chunkSections (here, or on the thread once free)')
timeMethod(LocalObjectStore.prototype, 'put', 'store.put (text sidecars, cartridges)')
timeMethod(LocalObjectStore.prototype, 'getBytes', 'store.getBytes')
timeMethod(OnboardingJobs.prototype, 'runBatch', 'runBatch (the run)')
timeMethod(Engine.prototype, 'buildDeferred', 'buildDeferred (awaits its compiles)')
timeMethod(Engine.prototype, 'warmBase', 'warmBase')
timeMethod(Engine.prototype, 'prepareSection', 'prepareSection (compile, on the thread)')

const texts: string[] = []
const prepare = Engine.prototype.prepareSection
Engine.prototype.prepareSection = function (this: Engine, text: string) {
  texts.push(text)
  return prepare.call(this, text)
}

// The process's CPU time (every thread) from each POST /train to the run's end: under load, where the
// wall clock mostly measures the other processes, the work a run takes.
let cpuAtTrain = process.cpuUsage()
const train = OnboardingService.prototype.train
OnboardingService.prototype.train = function (this: OnboardingService, ...args: Parameters<typeof train>) {
  cpuAtTrain = process.cpuUsage()
  return train.apply(this, args)
}
const cpuSeconds: number[] = []
const trainCpu = () => {
  const c = process.cpuUsage(cpuAtTrain)
  cpuSeconds.push((c.user + c.system) / 1e6)
  console.log(`user ${(c.user / 1e6).toFixed(2)} s, system ${(c.system / 1e6).toFixed(2)} s`)
}

/** Waits until the base's cartridges are all built; false when the base does not say (older code). */
async function waitForCart(b: Bench, id: string): Promise<boolean> {
  for (;;) {
    const res = await fetch(`${b.url}/v1/corpora/${id}`, { headers: { authorization: `Bearer ${b.token}` } })
    const status = ((await res.json()) as { cart_status?: string }).cart_status
    if (status === undefined) return false
    if (status === 'ready') return true
    await Bun.sleep(20)
  }
}

const files = corpus === 'small' ? smallFiles() : squadArticles()
const b = await startBench()
try {
  const base = await onboardBase(b, corpus, files)
  trainCpu()
  // From the run's end until the deferred build has made every cartridge (null: older code, none).
  const t0 = performance.now()
  const cartReady = (await waitForCart(b, base.id)) ? (performance.now() - t0) / 1000 : null
  const sections = texts.length
  const walls = [base.trainSeconds]
  for (let i = 1; i < RUNS; i++) {
    walls.push(await retrain(b, base.id))
    trainCpu()
  }
  const mb = base.mb
  console.log(`${corpus}: ${files.length} files, ${sections} sections, ${mb.toFixed(2)} MB`)
  console.log(`upload and extraction: ${base.uploadSeconds.toFixed(2)} s`)
  if (cartReady !== null)
    console.log(`cartridges all built ${cartReady.toFixed(2)} s after the first run ended`)
  console.log(
    `runs (first, then forced): ${walls.map((s) => `${s.toFixed(2)} s = ${(mb / s).toFixed(2)} MB/s`).join('; ')}`,
  )
  console.log(`CPU time of each run (all threads): ${cpuSeconds.map((s) => `${s.toFixed(2)} s`).join('; ')}`)
  console.log(`per run, on the event loop (mean over ${RUNS} runs):`)
  for (const [k, ms] of spent)
    console.log(`  ${k}: ${(ms / RUNS).toFixed(0)} ms (${(calls.get(k)! / RUNS).toFixed(0)} calls)`)
  // The compile's stages in process, on one run's texts (JIT warmed by the runs above).
  prepareStaticVectors()
  const stage = { chunkAndNumber: 0, fit: 0, encode: 0, passageInputs: 0, staticVectors: 0 }
  for (const text of texts.slice(0, sections)) {
    let t = performance.now()
    const cart = compileCartridge(text)
    stage.chunkAndNumber += performance.now() - t
    t = performance.now()
    const fitted = fitCartridge(cart)
    stage.fit += performance.now() - t
    t = performance.now()
    encodeCartridge(fitted)
    stage.encode += performance.now() - t
    t = performance.now()
    const inputs = passageInputs(fitted)
    stage.passageInputs += performance.now() - t
    t = performance.now()
    for (const p of inputs) staticVector(p.text)
    stage.staticVectors += performance.now() - t
  }
  const tRows = performance.now()
  for (const text of texts.slice(0, sections)) sectionPassages(text)
  console.log(
    `rows from text alone (sectionPassages, the run's part), in process: ${(performance.now() - tRows).toFixed(0)} ms`,
  )
  console.log('compile stages in process, one run (the deferred part):')
  for (const [k, ms] of Object.entries(stage)) console.log(`  ${k}: ${ms.toFixed(0)} ms`)
} finally {
  await b.stop()
}
