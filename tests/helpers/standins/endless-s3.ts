// An S3 server on loopback whose ListObjectsV2 never ends: every page is empty, truncated, and
// names a new continuation token (issue 32's attack: three syncs of such a bucket held every
// worker slot). The test decides when each page is answered (`hold`, `release`) and can wait for
// the n-th page request to arrive, so what a run does after a cancel is counted, not timed.

/** The stand-in: its endpoint, how many listing pages were asked for, and the gate on answers. */
export interface EndlessS3 {
  /** http://127.0.0.1:<port> */
  endpoint: string
  /** Listing pages asked for so far. */
  readonly pages: number
  /** From now on, page requests wait until `release` (they are answered at once otherwise). */
  hold(): void
  /** Answers the page requests waiting now; later ones wait again while holding. */
  release(): void
  /** Stops holding and answers whatever waits. */
  open(): void
  /** Resolves once `n` page requests have arrived. */
  page(n: number): Promise<void>
  stop(): void
}

const xml = (n: number) =>
  `<?xml version="1.0" encoding="UTF-8"?>
<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>endless</Name><Prefix></Prefix><KeyCount>0</KeyCount><MaxKeys>1000</MaxKeys><IsTruncated>true</IsTruncated><NextContinuationToken>page-${n}</NextContinuationToken></ListBucketResult>`

/** Starts the stand-in on 127.0.0.1 on a free port. */
export function startEndlessS3(): EndlessS3 {
  let pages = 0
  let holding = false
  let waiting: (() => void)[] = []
  const watchers: { n: number; done: () => void }[] = []
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      const url = new URL(req.url)
      if (req.method !== 'GET' || url.searchParams.get('list-type') !== '2') {
        return new Response('<Error><Code>NotImplemented</Code></Error>', { status: 501 })
      }
      const n = ++pages
      for (const w of watchers.filter((w) => w.n <= n)) w.done()
      if (holding) await new Promise<void>((r) => waiting.push(r))
      return new Response(xml(n), { headers: { 'content-type': 'application/xml' } })
    },
  })
  const answerWaiting = () => {
    const now = waiting
    waiting = []
    for (const r of now) r()
  }
  return {
    endpoint: `http://127.0.0.1:${server.port}`,
    get pages() {
      return pages
    },
    hold() {
      holding = true
    },
    release: answerWaiting,
    open() {
      holding = false
      answerWaiting()
    },
    page(n) {
      if (pages >= n) return Promise.resolve()
      return new Promise((done) => watchers.push({ n, done }))
    },
    stop() {
      holding = false
      answerWaiting()
      server.stop(true)
    },
  }
}
