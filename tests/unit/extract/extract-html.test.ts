import { describe, expect, test } from 'bun:test'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { extractText, SECTION_MAX_CHARS } from '../../../src/features/ingest/extract/extract.ts'
import { DOCS_DIR, extracted, titles } from './docs.ts'

const HTML = 'html/'
const TEN_K = `${HTML}Unstructured-IO_unstructured__example-10k.html`
const SCRIPTS = `${HTML}Unstructured-IO_unstructured__example-with-scripts.html`

const html = (body: string, contentType?: string) =>
  extractText({ bytes: new TextEncoder().encode(body), filename: 'page.html', contentType })

describe('HTML pages', () => {
  test('the 2.4 MB SEC filing splits at its bold item headings', async () => {
    const r = await extracted(TEN_K)
    expect(r.kind).toBe('html')
    expect(r.title).toBe('glxz-10k_20211231.htm')
    const t = titles(r)
    expect(t).toContain('ITEM 1A. RISK FACTORS')
    expect(t).toContain('NOTE 12. INCOME TAXES')
    for (const s of r.sections) expect(s.text.length).toBeLessThanOrEqual(SECTION_MAX_CHARS)
    expect(r.text).toContain(
      '☑ | ANNUAL REPORT PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934',
    )
    expect(r.text).toContain('Title of each class | Trading symbol | Name of exchange on which registered')
  })

  test('hidden inline-XBRL facts are not part of the text', async () => {
    const r = await extracted(TEN_K)
    expect(r.text).not.toContain('--12-31')
    expect(r.text.startsWith('UNITED STATES\n\nSECURITIES AND EXCHANGE COMMISSION')).toBe(true)
  })

  test('the one-page filing excerpt keeps its table rows', async () => {
    const r = await extracted(`${HTML}Unstructured-IO_unstructured__example-10k-1p.html`)
    expect(r.title).toBe('Galaxy Gaming, Inc.')
    expect(r.sections).toHaveLength(1)
    expect(r.text).toMatch(/\S \| \S/)
  })

  test('scripts and styles are dropped and the article is kept', async () => {
    const r = await extracted(SCRIPTS)
    const source = readFileSync(join(DOCS_DIR, SCRIPTS), 'utf8')
    expect(source).toContain('jQuery.extend(Drupal.settings')
    expect(r.text).not.toContain('jQuery')
    expect(r.text).not.toContain('Drupal.settings')
    expect(r.text).not.toMatch(/function\s*\(/)
    expect(r.text).not.toContain('{display:')
    expect(r.title).toBe(
      'Russian Offensive Campaign Assessment, December 13 | Institute for the Study of War',
    )
    expect(r.text).toContain('Belarusian forces remain unlikely to attack Ukraine despite a snap Belarusian')
    expect(titles(r)).toContain('Russian Offensive Campaign Assessment, December 13')
  })

  test('a cp1252 page without a charset declaration is decoded from its bytes', async () => {
    const r = await extracted(`${HTML}Unstructured-IO_unstructured__fake-html-cp1252.html`)
    expect(r.encoding).toBe('windows-1252')
    expect(r.title).toBe('My First Heading')
    expect(r.text).toContain('Die schöne Frau hat einen Kaffee mit Kuchen gegessen.')
    expect(r.text).toContain('Der Preis betrug 15,50 €.')
    expect(r.text).toContain('El niño comió paella con ñoquis. La señora dijo: "¡Qué rico!"')
    expect(r.text).toContain('O João comprou um café por 2,50 €.')
    // <pre> keeps its line breaks.
    expect(r.text).toContain("15,50 €.\nL'été était très chaud")
  })

  test('an essay without headings reads as paragraphs under its title', async () => {
    const r = await extracted(`${HTML}deepset-ai_haystack__paul_graham_superlinear.html`)
    expect(r.title).toBe('Superlinear Returns')
    expect(r.text).toContain(
      "One of the most important things I didn't understand about the world when I was a child is the degree to which the returns for performance are superlinear.",
    )
    expect(r.sections.length).toBe(2)
  })

  test('a documentation page splits at its h1..h3 headings when sections are small', async () => {
    const r = await extracted(`${HTML}deepset-ai_haystack__what_is_haystack.html`, {
      minChars: 100,
      maxChars: 1500,
    })
    expect(r.title).toBe('What is Haystack? | Haystack')
    const t = titles(r)
    for (const h of [
      'What is Haystack?',
      'Building with Haystack',
      'Building blocks',
      'Components',
      'Our community',
    ]) {
      expect(t).toContain(h)
    }
    expect(r.text).toContain('- Semantic search on a large collection of documents in any language')
  })

  test('the charset of a content type wins over the page and meta charset over guessing', async () => {
    const latin1 = new Uint8Array([
      ...new TextEncoder().encode('<p>caf'),
      0xe9,
      ...new TextEncoder().encode('</p>'),
    ])
    const declared = await extractText({
      bytes: latin1,
      filename: 'a.html',
      contentType: 'text/html; charset=iso-8859-1',
    })
    expect(declared.text).toBe('café')
    const meta = new Uint8Array([
      ...new TextEncoder().encode('<meta charset="windows-1251"><p>'),
      0xcf,
      0xf0,
      0xe8,
      0xe2,
      0xe5,
      0xf2,
      ...new TextEncoder().encode('</p>'),
    ])
    const cyrillic = await extractText({ bytes: meta, filename: 'b.html' })
    expect(cyrillic.text).toBe('Привет')
    expect(cyrillic.encoding).toBe('windows-1251')
  })

  test('line breaks, lists, pre blocks and hidden elements are rendered as a reader sees them', async () => {
    const r = await html(
      '<title>T</title><style>p{color:red}</style><h1>Head</h1><p>one<br>two</p>' +
        '<ol><li>first</li><li>second</li></ol><pre>  x = 1\n  y = 2</pre>' +
        '<div style="display: none">secret</div><noscript>enable js</noscript><nav>Home About</nav>' +
        '<table><tr><th>k</th><th></th><th>v</th></tr></table>',
    )
    expect(r.text).toBe('Head\n\none\ntwo\n\n1. first\n2. second\n\n  x = 1\n  y = 2\n\nk | v')
    expect(r.title).toBe('T')
  })
})
