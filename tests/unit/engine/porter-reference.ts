// The regular-expression Porter stemmer the engine used before porter.ts was written with character
// tests (kept verbatim as the reference porter.test.ts compares the new one with).

const step2: Record<string, string> = {
  ational: 'ate',
  tional: 'tion',
  enci: 'ence',
  anci: 'ance',
  izer: 'ize',
  bli: 'ble',
  alli: 'al',
  entli: 'ent',
  eli: 'e',
  ousli: 'ous',
  ization: 'ize',
  ation: 'ate',
  ator: 'ate',
  alism: 'al',
  iveness: 'ive',
  fulness: 'ful',
  ousness: 'ous',
  aliti: 'al',
  iviti: 'ive',
  biliti: 'ble',
  logi: 'log',
}
const step3: Record<string, string> = {
  icate: 'ic',
  ative: '',
  alize: 'al',
  iciti: 'ic',
  ical: 'ic',
  ful: '',
  ness: '',
}
const step2Re =
  /^(.+?)(ational|tional|enci|anci|izer|bli|alli|entli|eli|ousli|ization|ation|ator|alism|iveness|fulness|ousness|aliti|iviti|biliti|logi)$/
const step3Re = /^(.+?)(icate|ative|alize|iciti|ical|ful|ness)$/
const step4Re = /^(.+?)(al|ance|ence|er|ic|able|ible|ant|ement|ment|ent|ou|ism|ate|iti|ous|ive|ize)$/

const c = '[^aeiou]'
const v = '[aeiouy]'
const C = `${c}[^aeiouy]*`
const V = `${v}[aeiou]*`
const mgr0 = new RegExp(`^(${C})?${V}${C}`)
const meq1 = new RegExp(`^(${C})?${V}${C}(${V})?$`)
const mgr1 = new RegExp(`^(${C})?${V}${C}${V}${C}`)
const sV = new RegExp(`^(${C})?${v}`)
const cvc = new RegExp(`^${C}${v}[^aeiouwxy]$`)

/** The Porter stem of a lower-case English word. */
export function porterStemReference(input: string): string {
  if (input.length < 3) return input
  let w = input
  const firstY = w[0] === 'y'
  if (firstY) w = `Y${w.slice(1)}`

  // Step 1a: plurals.
  if (/^(.+?)(ss|i)es$/.test(w)) w = w.replace(/^(.+?)(ss|i)es$/, '$1$2')
  else if (/^(.+?)([^s])s$/.test(w)) w = w.replace(/^(.+?)([^s])s$/, '$1$2')

  // Step 1b: -eed, -ed, -ing.
  let m = /^(.+?)eed$/.exec(w)
  if (m) {
    if (mgr0.test(m[1]!)) w = w.slice(0, -1)
  } else {
    m = /^(.+?)(ed|ing)$/.exec(w)
    if (m && sV.test(m[1]!)) {
      w = m[1]!
      if (/(at|bl|iz)$/.test(w)) w += 'e'
      else if (/([^aeiouylsz])\1$/.test(w)) w = w.slice(0, -1)
      else if (cvc.test(w)) w += 'e'
    }
  }

  // Step 1c: terminal y to i when there is another vowel.
  m = /^(.+?)y$/.exec(w)
  if (m && sV.test(m[1]!)) w = `${m[1]}i`

  // Step 2: double suffixes to single ones.
  m = step2Re.exec(w)
  if (m && mgr0.test(m[1]!)) w = m[1]! + step2[m[2]!]

  // Step 3: -ic-, -full, -ness etc.
  m = step3Re.exec(w)
  if (m && mgr0.test(m[1]!)) w = m[1]! + step3[m[2]!]

  // Step 4: strip -ant, -ence etc. when the stem is long enough.
  m = step4Re.exec(w)
  if (m) {
    if (mgr1.test(m[1]!)) w = m[1]!
  } else {
    m = /^(.+?)(s|t)(ion)$/.exec(w)
    if (m && mgr1.test(m[1]! + m[2]!)) w = m[1]! + m[2]!
  }

  // Step 5: final -e and -ll.
  m = /^(.+?)e$/.exec(w)
  if (m) {
    const stem = m[1]!
    if (mgr1.test(stem) || (meq1.test(stem) && !cvc.test(stem))) w = stem
  }
  if (/ll$/.test(w) && mgr1.test(w)) w = w.slice(0, -1)

  if (firstY) w = `y${w.slice(1)}`
  return w
}
