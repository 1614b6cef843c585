// Martin Porter's 1980 suffix-stripping algorithm, the stemmer SQLite FTS5's `porter` tokenizer and most
// BM25 engines use. Kept in-tree rather than as a dependency: it never changes. Written with character
// tests instead of regular expressions (faster, and no strings made but the stem): every stem is the
// one the common regular-expression version gives (tests/unit/engine/porter.test.ts keeps that version
// and compares them), with its treatment of "y" ("aeiouy" are the vowels a sequence starts with,
// "aeiou" the ones it continues with) and of a leading "y" (always a consonant).

// "aeiou" (A) and "aeiouy" (Y): the two vowel classes the measures below use.
function isA(c: number): boolean {
  return c === 97 || c === 101 || c === 105 || c === 111 || c === 117
}
function isY(c: number): boolean {
  return c === 121 || isA(c)
}

/** Where the measures' first vowel of w[0, n) is, or -1: w[0] when in "aeiouy", else the first of "aeiouy" after it. */
function firstVowel(w: string, n: number): number {
  const c = w.charCodeAt(0)
  if (isY(c)) return 0
  for (let i = 1; i < n; i++) if (isY(w.charCodeAt(i))) return i
  return -1
}

/** The first i in (from, n) whose letter is not in "aeiou", or -1. */
function nextNonA(w: string, from: number, n: number): number {
  for (let i = from + 1; i < n; i++) if (!isA(w.charCodeAt(i))) return i
  return -1
}

/** The first i in (from, n) whose letter is in "aeiouy", or -1. */
function nextY(w: string, from: number, n: number): number {
  for (let i = from + 1; i < n; i++) if (isY(w.charCodeAt(i))) return i
  return -1
}

/** The vowel-consonant sequences of w[0, n) from its first vowel at p: 0, 1, or 2 for "2 or more". */
function sequencesFrom(w: string, p: number, n: number): number {
  if (p < 0) return 0
  const q = nextNonA(w, p, n)
  if (q < 0) return 0
  const r = nextY(w, q, n)
  return r >= 0 && nextNonA(w, r, n) >= 0 ? 2 : 1
}

/**
 * The vowel-consonant sequences at the start of w[0, n): 0, 1, or 2 for "2 or more" (the measure m
 * of Porter's paper, as `^(C)?VC` and `^(C)?VCVC` read it). The word never starts with "y" here
 * (porterStem makes a leading one "Y"), so its first vowel is the one place the reading can start.
 */
function measure(w: string, n: number): number {
  return sequencesFrom(w, firstVowel(w, n), n)
}

/** Whether w[0, n), read from its first vowel at p, is one vowel-consonant sequence and then vowels only. */
function oneFrom(w: string, p: number, n: number): boolean {
  if (p < 0) return false
  const q = nextNonA(w, p, n)
  if (q < 0) return false
  const r = nextY(w, q, n)
  if (r < 0) return true
  for (let i = r + 1; i < n; i++) if (!isA(w.charCodeAt(i))) return false
  return true
}

/** Whether w[0, n) has exactly one vowel-consonant sequence, ending there or in vowels (`^(C)?VC(V)?$`). */
function measureIsOne(w: string, n: number): boolean {
  return oneFrom(w, firstVowel(w, n), n)
}

/** Whether w[0, n) holds a vowel ("aeiouy"; a leading "Y" is not one). */
function hasVowel(w: string, n: number): boolean {
  for (let i = 0; i < n; i++) if (isY(w.charCodeAt(i))) return true
  return false
}

/** Whether w[0, n) is consonants, one vowel, and a last consonant other than w, x or y (`^C v [^aeiouwxy]$`). */
function cvc(w: string, n: number): boolean {
  if (n < 3 || isA(w.charCodeAt(0)) || !isY(w.charCodeAt(n - 2))) return false
  const last = w.charCodeAt(n - 1)
  if (isY(last) || last === 119 || last === 120) return false
  for (let i = 1; i < n - 2; i++) if (isY(w.charCodeAt(i))) return false
  return true
}

// Suffix lists of steps 2, 3 and 4, each with what it becomes. A word takes the longest suffix of a
// list that leaves a stem of at least one letter, and only that one, as the expressions' lazy stems do.
const STEP2: [string, string][] = [
  ['ational', 'ate'],
  ['tional', 'tion'],
  ['enci', 'ence'],
  ['anci', 'ance'],
  ['izer', 'ize'],
  ['bli', 'ble'],
  ['alli', 'al'],
  ['entli', 'ent'],
  ['eli', 'e'],
  ['ousli', 'ous'],
  ['ization', 'ize'],
  ['ation', 'ate'],
  ['ator', 'ate'],
  ['alism', 'al'],
  ['iveness', 'ive'],
  ['fulness', 'ful'],
  ['ousness', 'ous'],
  ['aliti', 'al'],
  ['iviti', 'ive'],
  ['biliti', 'ble'],
  ['logi', 'log'],
]
const STEP3: [string, string][] = [
  ['icate', 'ic'],
  ['ative', ''],
  ['alize', 'al'],
  ['iciti', 'ic'],
  ['ical', 'ic'],
  ['ful', ''],
  ['ness', ''],
]
const STEP4 = 'al ance ence er ic able ible ant ement ment ent ou ism ate iti ous ive ize'
  .split(' ')
  .map((suffix): [string, string] => [suffix, ''])

/** Whether w[0, n) ends with `suffix` (compared by character codes: endsWith is slower here). */
function ends(w: string, n: number, suffix: string): boolean {
  const k = suffix.length
  if (k > n) return false
  for (let i = 1; i <= k; i++) if (w.charCodeAt(n - i) !== suffix.charCodeAt(k - i)) return false
  return true
}

/** A suffix list by the suffixes' last letter, longest first: the first a word ends with is the one to take. */
function byLastLetter(list: [string, string][]): Map<number, [string, string][]> {
  const out = new Map<number, [string, string][]>()
  for (const s of [...list].sort((a, b) => b[0].length - a[0].length)) {
    const last = s[0].charCodeAt(s[0].length - 1)
    out.set(last, [...(out.get(last) ?? []), s])
  }
  return out
}
const STEP2_BY_LAST = byLastLetter(STEP2)
const STEP3_BY_LAST = byLastLetter(STEP3)
const STEP4_BY_LAST = byLastLetter(STEP4)

/** The longest suffix of a list that w ends with leaving at least one letter before it, or null. */
function suffixOf(w: string, list: Map<number, [string, string][]>): [string, string] | null {
  const n = w.length
  const candidates = list.get(w.charCodeAt(n - 1))
  if (candidates === undefined) return null
  for (let i = 0; i < candidates.length; i++) {
    const s = candidates[i]!
    if (n > s[0].length && ends(w, n, s[0])) return s
  }
  return null
}

/** The Porter stem of a lower-case English word. */
export function porterStem(input: string): string {
  if (input.length < 3) return input
  let w = input
  const firstY = w.charCodeAt(0) === 121
  if (firstY) w = `Y${w.slice(1)}`
  let n = w.length

  // Step 1a: plurals.
  if (n > 4 && ends(w, n, 'sses')) w = w.slice(0, -2)
  else if (n > 3 && ends(w, n, 'ies')) w = w.slice(0, -2)
  else if (w.charCodeAt(n - 1) === 115 && w.charCodeAt(n - 2) !== 115) w = w.slice(0, -1)
  n = w.length

  // Step 1b: -eed, -ed, -ing.
  if (n > 3 && ends(w, n, 'eed')) {
    if (measure(w, n - 3) > 0) w = w.slice(0, -1)
  } else {
    const cut = n > 2 && ends(w, n, 'ed') ? 2 : n > 3 && ends(w, n, 'ing') ? 3 : 0
    if (cut > 0 && hasVowel(w, n - cut)) {
      w = w.slice(0, n - cut)
      const m = w.length
      const last = w.charCodeAt(m - 1)
      if (m >= 2 && (ends(w, m, 'at') || ends(w, m, 'bl') || ends(w, m, 'iz'))) w += 'e'
      else if (
        m >= 2 &&
        last === w.charCodeAt(m - 2) &&
        !isY(last) &&
        last !== 108 &&
        last !== 115 &&
        last !== 122
      )
        w = w.slice(0, -1)
      else if (cvc(w, m)) w += 'e'
    }
  }
  n = w.length

  // Step 1c: terminal y to i when there is another vowel.
  if (n > 1 && w.charCodeAt(n - 1) === 121 && hasVowel(w, n - 1)) w = `${w.slice(0, -1)}i`

  // Step 2: double suffixes to single ones.
  let s = suffixOf(w, STEP2_BY_LAST)
  if (s && measure(w, w.length - s[0].length) > 0) w = w.slice(0, w.length - s[0].length) + s[1]

  // Step 3: -ic-, -full, -ness etc.
  s = suffixOf(w, STEP3_BY_LAST)
  if (s && measure(w, w.length - s[0].length) > 0) w = w.slice(0, w.length - s[0].length) + s[1]

  // Step 4: strip -ant, -ence etc. when the stem is long enough.
  n = w.length
  s = suffixOf(w, STEP4_BY_LAST)
  if (s) {
    if (measure(w, n - s[0].length) > 1) w = w.slice(0, n - s[0].length)
  } else if (n > 4 && (ends(w, n, 'sion') || ends(w, n, 'tion')) && measure(w, n - 3) > 1) w = w.slice(0, -3)

  // Step 5: final -e and -ll.
  n = w.length
  if (n > 1 && w.charCodeAt(n - 1) === 101) {
    const m = n - 1
    if (measure(w, m) > 1 || (measureIsOne(w, m) && !cvc(w, m))) w = w.slice(0, m)
  }
  n = w.length
  if (ends(w, n, 'll') && measure(w, n) > 1) w = w.slice(0, -1)

  if (firstY) w = `y${w.slice(1)}`
  return w
}
