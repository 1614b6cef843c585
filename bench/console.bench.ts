// `npm run bench console`: the console's weight and how fast it paints. Bundle: the script and style
// sheet `buildConsole()` makes (what `npm run build` embeds), raw and gzipped, against issue 19's
// budget of 150 KB of JavaScript gzipped. Paint: Debian's headless Chromium loads /console/sign-in
// from the real app on a loopback port, warmed (the bundle already built and served once), N times
// in a fresh browser profile (nothing cached: a first visit) and N times in one profile (a repeat
// visit, the hashed assets cached). Each load reports when the HTML and the assets arrived,
// first-contentful-paint (PerformanceObserver 'paint'), largest-contentful-paint, and when the
// "Sign in" heading was on screen: the page is empty until the script renders, so the heading is
// the first meaningful paint. Prints median and p95, and the machine's load average (on a shared
// machine the figures move with it); asserts nothing.
import { existsSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { type Browser, type BrowserContext, chromium } from 'playwright-core'
import { buildConsole } from '../src/features/console/console.build'
import { pct, startBench } from './lib/harness'

const LOADS = Number(process.env.BENCH_LOADS ?? 30)
const WARMUP = 3
const BUDGET_GZIP = 150 * 1024

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`

// --- Bundle size -------------------------------------------------------------------------------
const t0 = performance.now()
const files = await buildConsole()
const buildMs = performance.now() - t0
let js = { raw: 0, gz: 0 }
let css = { raw: 0, gz: 0 }
console.log('file                         raw        gzip')
for (const f of files) {
  const gz = Bun.gzipSync(f.body).length
  console.log(`${f.name.padEnd(28)} ${kb(f.body.length).padStart(9)} ${kb(gz).padStart(9)}`)
  if (f.name.endsWith('.js')) js = { raw: js.raw + f.body.length, gz: js.gz + gz }
  if (f.name.endsWith('.css')) css = { raw: css.raw + f.body.length, gz: css.gz + gz }
}
console.log(
  `JavaScript: ${kb(js.raw)} raw, ${kb(js.gz)} gzipped (${((js.gz / BUDGET_GZIP) * 100).toFixed(0)}% of the 150 KB budget)`,
)
const html = new TextDecoder().decode(files.find((f) => f.name === 'index.html')!.body)
const entry = files.find((f) => html.includes(`/console/assets/${f.name}"`) && f.name.endsWith('.js'))!
console.log(
  `Entry script (what every page loads; chunks load when a page needs them): ${kb(entry.body.length)} raw, ${kb(Bun.gzipSync(entry.body).length)} gzipped`,
)
console.log(`CSS:        ${kb(css.raw)} raw, ${kb(css.gz)} gzipped`)
console.log(
  `JS + CSS:   ${kb(js.raw + css.raw)} raw, ${kb(js.gz + css.gz)} gzipped; Bun.build took ${buildMs.toFixed(0)} ms`,
)

// --- First meaningful paint --------------------------------------------------------------------
const chromiumPath = [
  process.env.ENGRAM_CHROMIUM,
  '/usr/bin/chromium-headless-shell',
  '/usr/bin/chromium',
].find((p) => p && existsSync(p))
if (!chromiumPath) {
  console.log('\nNo Chromium found (run `bun run scripts/ensure-browser.ts`): paint not measured.')
  process.exit(0)
}

/** Set up in the page before its own scripts run: records FCP and when the heading was painted. */
const PROBE = `
  window.__paint = {};
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.name === 'first-contentful-paint') window.__paint.fcp = e.startTime;
  }).observe({ type: 'paint', buffered: true });
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) window.__paint.lcp = e.startTime;
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  const seen = () => {
    for (const h of document.querySelectorAll('h1')) if (h.textContent === 'Sign in') return true;
    return false;
  };
  new MutationObserver((_m, obs) => {
    if (window.__paint.inDom !== undefined || !seen()) return;
    window.__paint.inDom = performance.now();
    obs.disconnect();
    // The frame that shows it: the callback of the next animation frame runs before that frame paints,
    // the one after runs once it has been painted.
    requestAnimationFrame(() => requestAnimationFrame(() => { window.__paint.frame = performance.now(); }));
  }).observe(document, { childList: true, subtree: true });
`

interface Sample {
  fcp: number
  /** The last largest-contentful-paint entry once the heading is painted. */
  lcp: number
  /** The heading entered the page. */
  inDom: number
  /** The heading on screen: the first contentful paint, or the frame after it if it came later. */
  heading: number
  /** The page's HTML fully received. */
  html: number
  /** The last script or style sheet received. */
  assets: number
}

async function loadOnce(ctx: BrowserContext, url: string): Promise<Sample> {
  const page = await ctx.newPage()
  await page.addInitScript(PROBE)
  await page.goto(url)
  await page.waitForFunction(() => {
    const p = (window as unknown as { __paint: { fcp?: number; frame?: number; lcp?: number } }).__paint
    return p.fcp !== undefined && p.frame !== undefined && p.lcp !== undefined
  })
  const s = await page.evaluate(() => {
    const p = (window as unknown as { __paint: { fcp: number; lcp: number; inDom: number; frame: number } })
      .__paint
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming
    const assets = performance
      .getEntriesByType('resource')
      .filter((e) => e.name.includes('/console/assets/'))
      .map((e) => (e as PerformanceResourceTiming).responseEnd)
    return {
      fcp: p.fcp,
      lcp: p.lcp,
      inDom: p.inDom,
      // The page shows nothing before the script renders: a heading already there at the first
      // contentful paint was painted by it; otherwise by the frame after it came.
      heading: p.inDom <= p.fcp ? p.fcp : p.frame,
      html: nav.responseEnd,
      assets: Math.max(0, ...assets),
    }
  })
  await page.close()
  return s
}

function summary(label: string, samples: Sample[]): void {
  console.log(`${label} (${samples.length} loads):`)
  const rows: [string, keyof Sample][] = [
    ['HTML received', 'html'],
    ['script and style received', 'assets'],
    ['"Sign in" heading in the page', 'inDom'],
    ['first-contentful-paint', 'fcp'],
    ['largest-contentful-paint', 'lcp'],
    ['"Sign in" heading on screen', 'heading'],
  ]
  for (const [name, field] of rows) {
    const sorted = samples.map((s) => s[field]).sort((a, b) => a - b)
    console.log(
      `  ${name.padEnd(30)} median ${pct(sorted, 0.5).toFixed(0).padStart(4)} ms, p95 ${pct(sorted, 0.95).toFixed(0).padStart(4)} ms`,
    )
  }
}

const load = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')
console.log(`\nLoad average before: ${load()} (${cpus().length} CPUs)`)
const b = await startBench()
let browser: Browser | undefined
try {
  const url = `${b.url}/console/sign-in`
  // Warm the server: the first request builds the bundle in memory.
  const served = await (await fetch(url)).text()
  for (const m of served.matchAll(/(?:href|src)="(\/console\/assets\/[^"]+)"/g))
    await (await fetch(`${b.url}${m[1]}`)).arrayBuffer()
  browser = await chromium.launch({ executablePath: chromiumPath, args: ['--no-sandbox'] })
  const viewport = { width: 1280, height: 800 }

  const first: Sample[] = []
  for (let i = 0; i < WARMUP + LOADS; i++) {
    const ctx = await browser.newContext({ viewport })
    const s = await loadOnce(ctx, url)
    await ctx.close()
    if (i >= WARMUP) first.push(s)
  }
  const ctx = await browser.newContext({ viewport })
  const repeat: Sample[] = []
  for (let i = 0; i < WARMUP + LOADS; i++) {
    const s = await loadOnce(ctx, url)
    if (i >= WARMUP) repeat.push(s)
  }
  await ctx.close()
  console.log(`\nPaint of ${url.replace(b.url, '')}, headless Chromium (${chromiumPath}), 1280 × 800:`)
  summary('First visit (fresh profile, nothing cached)', first)
  summary('Repeat visit (same profile, hashed assets cached)', repeat)
  console.log(`Load average after: ${load()}`)
} finally {
  await browser?.close()
  await b.stop()
}
