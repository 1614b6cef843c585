// Abstention on squad-dev (issue 18, item 9): does a base decline the questions it cannot answer,
// and still answer its own? The 24 articles are cut into four quarters by the SHA-256 of their file
// names (an order nobody chose): A1, B1, A2, B2. Base A holds A1 + A2, base B holds B1 + B2 (half
// the articles each). Each base is asked the questions of every article: its own and the other
// half's. The tuning split is the questions of A1 and B1 (the support model of
// src/features/engine/support/support.ts was fitted and its threshold set on them only); the held-out
// split is the questions of A2 and B2, never looked at while tuning.
import { createHash } from 'node:crypto'
import { writeFileSync } from 'node:fs'
import type { AskExplain } from '../../src/features/engine/compose/index'
import type { Engine } from '../../src/features/engine/engine.service'

/** One article of the data set, already cut into sections. */
export interface Article {
  file: string
  title: string
  parts: string[]
}

/** One question of the data set. */
export interface AbstainQuestion {
  document: string
  question: string
  answers: { text: string }[]
}

/** The quarters of the articles: [A1, B1, A2, B2]. */
export function quarters(files: string[]): string[][] {
  const h = (s: string) => createHash('sha256').update(s).digest('hex')
  const sorted = [...files].sort((a, b) => h(a).localeCompare(h(b)))
  const q = Math.ceil(sorted.length / 4)
  return [0, 1, 2, 3].map((i) => sorted.slice(i * q, (i + 1) * q))
}

interface Tally {
  own: number
  ownDeclined: number
  /** Own questions answered correctly (the gold in the answer) when the check is off... */
  ownGood: number
  /** ...and of those, how many the check declines. */
  ownGoodDeclined: number
  foreign: number
  foreignDeclined: number
}

/**
 * Builds the two half bases, asks every question of both strategies, and prints the shares per
 * split. `contains` is the bench's gold test; `signalsFile` receives the tuning split's records
 * (question, search evidence, support signals, top sources; scripts/refit-support.ts refits the
 * model from them), never the held-out split's.
 */
export async function measureAbstention(
  engine: Engine,
  articles: Article[],
  questions: AbstainQuestion[],
  contains: (text: string, golds: string[]) => boolean,
  strategies: ('rag' | 'cart')[],
  signalsFile?: string,
): Promise<void> {
  const [a1, b1, a2, b2] = quarters(articles.map((a) => a.file)) as [string[], string[], string[], string[]]
  const halves = { A: new Set([...a1, ...a2]), B: new Set([...b1, ...b2]) }
  const tuning = new Set([...a1, ...b1])
  const tallies = new Map<string, Tally>()
  const signals: string[] = []
  for (const [name, half] of Object.entries(halves)) {
    const base = `cor_half_${name}`
    for (const a of articles.filter((x) => half.has(x.file)))
      for (const [i, text] of a.parts.entries())
        await engine.onboardSection({
          workspaceId: 'ws_bench',
          baseId: base,
          documentId: `doc_${a.file}`,
          sectionId: `${base}_${a.file}_${i}`,
          title: a.title,
          filename: a.file,
          text,
        })
    // What the embed job does after a run, when the model is an embeddings server.
    if (engine.embedsAfterOnboarding)
      await engine.embedSections(engine.sectionsOf(base).map((s) => s.sectionId))
    // What the encode job does after a run, with the built-in encoder on (the default).
    await engine.encodings.encodeSections(engine.sectionsOf(base).map((s) => s.sectionId))
    for (const q of questions) {
      const split = tuning.has(q.document) ? 'tuning' : 'held-out'
      const own = half.has(q.document)
      const golds = q.answers.map((x) => x.text)
      for (const strategy of strategies) {
        const key = `${split}\t${strategy}`
        const t = tallies.get(key) ?? {
          own: 0,
          ownDeclined: 0,
          ownGood: 0,
          ownGoodDeclined: 0,
          foreign: 0,
          foreignDeclined: 0,
        }
        tallies.set(key, t)
        const explain: AskExplain = {}
        const res = await engine.ask(base, { question: q.question, k: 5, strategy }, explain)
        if (signalsFile && split === 'tuning') {
          signals.push(
            JSON.stringify({
              base: name,
              strategy,
              own,
              question: q.question,
              signals: explain.signals ?? null,
              evidence: explain.evidence,
              unchecked: explain.unchecked ?? '',
              model: explain.model ?? [],
              sources: res.sources.map((s) => ({
                document_id: s.documentId,
                title: s.title,
                snippet: s.snippet,
              })),
            }),
          )
        }
        if (!own) {
          t.foreign++
          if (!res.answered) t.foreignDeclined++
          continue
        }
        t.own++
        if (!res.answered) t.ownDeclined++
        // Would the answer have been right without the check?
        if (contains(explain.unchecked ?? '', golds)) {
          t.ownGood++
          if (!res.answered) t.ownGoodDeclined++
        }
      }
    }
    await engine.removeBase(base)
  }
  const pct = (n: number, d: number) => `${((100 * n) / Math.max(1, d)).toFixed(1)}%`
  console.log(
    "\nAbstention: half bases (12 articles each) asked their own questions and the other half's\n" +
      '(tuning split: the questions of quarters A1 and B1; held-out: A2 and B2)\n',
  )
  console.log(
    '| split | strategy | foreign questions | declined | own questions | still answered | lost | correct answers lost |',
  )
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- |')
  for (const [key, t] of [...tallies].sort()) {
    const [split, strategy] = key.split('\t')
    console.log(
      `| ${split} | ${strategy} | ${t.foreign} | ${pct(t.foreignDeclined, t.foreign)} | ${t.own} | ` +
        `${pct(t.own - t.ownDeclined, t.own)} | ${pct(t.ownDeclined, t.own)} | ${pct(t.ownGoodDeclined, t.ownGood)} |`,
    )
  }
  if (signalsFile) writeFileSync(signalsFile, `${signals.join('\n')}\n`)
}
