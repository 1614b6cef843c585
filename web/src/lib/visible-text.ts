/**
 * Text others supplied (file names above all) as it can be shown without fooling the reader. A
 * bidirectional control reorders what follows it: `invoice\u202Efdp.exe` reads as `invoiceexe.pdf`.
 * Those controls, and the characters that draw nothing (zero-width space, word joiner, byte-order
 * mark, fillers), are shown as markers such as `<U+202E>`; the name stays stored, and answered by
 * the API, as it was given. The joiners and selectors that scripts and emoji need are kept.
 */

// Bidi_Control: U+061C, U+200E-200F, U+202A-202E, U+2066-2069. Default_Ignorable_Code_Point: the
// invisible rest (U+00AD, U+034F, U+115F, U+200B-200F, U+2060-206F, U+3164, U+FEFF, U+FFA0, ...).
const HIDDEN = /[\p{Bidi_Control}\p{Default_Ignorable_Code_Point}]/gu
// Kept: ZWNJ and ZWJ (Persian, Indic scripts, emoji sequences), variation selectors (text or emoji
// style), Mongolian free variation selectors, and the tag characters of subdivision flags.
const KEPT: [number, number][] = [
  [0x180b, 0x180d],
  [0x180f, 0x180f],
  [0x200c, 0x200d],
  [0xfe00, 0xfe0f],
  [0xe0020, 0xe007f],
  [0xe0100, 0xe01ef],
]

const kept = (c: string) => {
  const cp = c.codePointAt(0)!
  return KEPT.some(([lo, hi]) => cp >= lo && cp <= hi)
}

/** The marker shown for a hidden character: `<U+202E>`. */
function marker(c: string): string {
  return `<U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}>`
}

/** `s` with every direction control and invisible character shown as a marker. */
export function visibleText(s: string): string {
  return s.replace(HIDDEN, (c) => (kept(c) ? c : marker(c)))
}
