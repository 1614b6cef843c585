import { FormatRegistry, type StringOptions, type TString, Type } from '@sinclair/typebox'

// Strings a person typed. NUL and other control characters truncate or corrupt what reads them
// (C strings, terminals, logs, CSV) and an unpaired UTF-16 surrogate is not text at all: it cannot
// be written as UTF-8, so it would come back as something else than was stored.

/** Whether a string has a C0 or C1 control character; `whitespace` allows tab, line feed and return. */
export function hasControl(s: string, whitespace = false): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (whitespace && (c === 0x09 || c === 0x0a || c === 0x0d)) continue
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true
  }
  return false
}

/** Whether a string is valid Unicode: no unpaired surrogate. */
export function isWellFormed(s: string): boolean {
  return s.isWellFormed()
}

/**
 * Why a typed string is refused, in a person's words, or null. A name is trimmed before use, so
 * only what is left after trimming must be free of control characters.
 */
export function textProblem(value: string, whitespace: boolean): string | null {
  const s = whitespace ? value : value.trim()
  if (hasControl(s, whitespace)) {
    return whitespace
      ? 'Must not contain control characters other than tab and line breaks'
      : 'Must not contain control characters'
  }
  if (!isWellFormed(s)) return 'Must be valid Unicode text (an unpaired surrogate was sent)'
  return null
}

/** Format names the validator explains in words (see `issuesOf`). */
export const TEXT_FORMATS = { name: false, text: true } as const

for (const [format, whitespace] of Object.entries(TEXT_FORMATS)) {
  if (!FormatRegistry.Has(format)) FormatRegistry.Set(format, (v) => textProblem(v, whitespace) === null)
}

/** A one-line name (workspace, person, base, key): no control characters, valid Unicode. */
export function NameString(options: StringOptions = {}): TString {
  return Type.String({ ...options, format: 'name' })
}

/** Free text (a question, a comment): line breaks and tabs allowed, other controls not. */
export function TextString(options: StringOptions = {}): TString {
  return Type.String({ ...options, format: 'text' })
}
