// Many small files for onboarding benchmarks: one paragraph of squad-dev each.
import { squadArticles } from './harness'

/** The number of files the "5,000 small files" scale has. */
export const SMALL_FILES = 5000

/** 5,000 one-paragraph files: squad-dev's paragraphs in turn, each later round with a copy tag so no two are equal. */
export function smallFiles(n = SMALL_FILES): { path: string; text: string }[] {
  const paragraphs = squadArticles().flatMap((a) =>
    a.text
      .split(/\n\s*\n/)
      .map((p) => p.trim())
      .filter((p) => p.length > 0),
  )
  return Array.from({ length: n }, (_, i) => {
    const round = Math.floor(i / paragraphs.length)
    const p = paragraphs[i % paragraphs.length]!
    return { path: `p${String(i).padStart(5, '0')}.txt`, text: round === 0 ? p : `${p} (copy ${round}).` }
  })
}
