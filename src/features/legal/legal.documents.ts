// The legal documents a workspace accepts. Templates ship inside the binary (imported as text, so
// `bun build --compile` embeds them); an operator replaces any of them with `<document>.md` in the
// folder `legal.dir` names. A file opens with a front matter block giving its version and title;
// the text is everything after it (blank lines first skipped), byte for byte, and its SHA-256 is what an acceptance records.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import DPA from '../../../assets/legal/dpa.md' with { type: 'text' }
import PRIVACY from '../../../assets/legal/privacy.md' with { type: 'text' }
import TERMS from '../../../assets/legal/terms.md' with { type: 'text' }
import { sha256Hex } from '../../platform/crypto/hash'

/** The documents, in the order a workspace is asked to accept them. */
export const LEGAL_DOCUMENTS = ['terms', 'privacy', 'dpa'] as const

/** One of the legal documents. */
export type LegalDocumentName = (typeof LEGAL_DOCUMENTS)[number]

/** A document as served: its current version, title, exact text and the text's SHA-256 (hex). */
export interface LegalDocument {
  document: LegalDocumentName
  version: string
  title: string
  text: string
  sha256: string
  /** `shipped` (the template in the binary) or `operator` (a file in `legal.dir`). */
  source: 'shipped' | 'operator'
}

const SHIPPED: Record<LegalDocumentName, string> = { terms: TERMS, privacy: PRIVACY, dpa: DPA }

const FRONT = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*\r?\n/
const VERSION = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/

/** Whether a name is one of the documents. */
export function isLegalDocument(name: string): name is LegalDocumentName {
  return (LEGAL_DOCUMENTS as readonly string[]).includes(name)
}

/**
 * Parses a document file: front matter with `version` (letters, digits, `.`, `_`, `-`) and `title`,
 * then the text. Throws a message naming the file when either is missing, so a bad replacement
 * stops the server at start-up instead of serving a document nobody can accept.
 */
export function parseLegalFile(
  document: LegalDocumentName,
  raw: string,
  source: LegalDocument['source'],
  where: string,
): LegalDocument {
  const m = FRONT.exec(raw)
  if (!m) throw new Error(`${where}: a legal document opens with '---', 'version: ...', 'title: ...', '---'`)
  const fields = new Map<string, string>()
  for (const line of (m[1] ?? '').split(/\r?\n/)) {
    const at = line.indexOf(':')
    if (at > 0) fields.set(line.slice(0, at).trim(), line.slice(at + 1).trim())
  }
  const version = fields.get('version') ?? ''
  const title = fields.get('title') ?? ''
  if (!VERSION.test(version))
    throw new Error(`${where}: 'version' missing or not of [A-Za-z0-9._-] (at most 64)`)
  if (title === '') throw new Error(`${where}: 'title' missing`)
  // Blank lines between the block and the text are not the text (formatters add one).
  const text = raw.slice(m[0].length).replace(/^(?:[ \t]*\r?\n)+/, '')
  if (text.trim() === '') throw new Error(`${where}: the text after the front matter is empty`)
  return { document, version, title, text, sha256: sha256Hex(text), source }
}

/** Loads every document: the operator's file in `dir` where there is one, the shipped template otherwise. */
export function loadLegalDocuments(dir: string | null): Map<LegalDocumentName, LegalDocument> {
  const out = new Map<LegalDocumentName, LegalDocument>()
  for (const name of LEGAL_DOCUMENTS) {
    const path = dir === null ? null : join(dir, `${name}.md`)
    out.set(
      name,
      path !== null && existsSync(path)
        ? parseLegalFile(name, readFileSync(path, 'utf8'), 'operator', path)
        : parseLegalFile(name, SHIPPED[name], 'shipped', `assets/legal/${name}.md`),
    )
  }
  return out
}
