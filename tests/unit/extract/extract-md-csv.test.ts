import { describe, expect, test } from 'bun:test'
import { extractText, SECTION_MAX_CHARS } from '../../../src/features/ingest/extract/extract.ts'
import { extracted, titles } from './docs.ts'

const MD = 'md/'
const CSV = 'csv/'

describe('Markdown', () => {
  test('umlauts in a Latin-1 file are decoded', async () => {
    const r = await extracted(`${MD}Unstructured-IO_unstructured__umlauts-non-utf8.md`)
    expect(r.kind).toBe('markdown')
    expect(r.encoding).toBe('windows-1252')
    expect(r.text).toBe('## können\n\nkönnen\n\näöüß')
    expect(r.title).toBe('können')
  })

  test('headings split sections; front matter and code are not headings', async () => {
    const r = await extracted(`${MD}deepset-ai_haystack__sample.md`, { minChars: 50, maxChars: 2500 })
    expect(titles(r)).toEqual([
      null,
      'What to build with Haystack',
      'Core Features',
      'Quick Demo',
      '2nd level headline for testing purposes',
    ])
    expect(r.sections[0]!.text).toBe(
      '---\ntype: intro\ndate: 1.1.2023\n---\n```bash\npip install farm-haystack\n```',
    )
    // The level-4 heading is too small to stand alone and joins the one before it.
    expect(r.sections[4]!.text).toContain('#### 3rd level headline for testing purposes')
  })

  test('a short file is one section that keeps headings and code blocks verbatim', async () => {
    const r = await extracted(`${MD}Unstructured-IO_unstructured__README.md`)
    expect(r.sections).toHaveLength(1)
    expect(r.title).toBe('Example Docs')
    expect(r.text).toContain('#### XBRL 10-K')
    expect(r.text).toContain('- `example-10k.html` - A 10-K SEC filing in HTML format')
  })

  test('markup inside a fenced code block does not start a section', async () => {
    const r = await extracted(`${MD}Unstructured-IO_unstructured__codeblock.md`, {
      minChars: 10,
      maxChars: 400,
    })
    expect(titles(r)).toEqual(['HTML Example', 'XML Example'])
    expect(r.sections[0]!.text).toContain('<h1>Hello, World!</h1>')
  })

  test('a pipe table is kept as written', async () => {
    const r = await extracted(`${MD}Unstructured-IO_unstructured__simple-table.md`)
    expect(r.text).toBe(
      'Item | Price | # In stock\n---|---|---\nJuicy Apples | 1.99 | 739\nBananas | 1.89 | 6',
    )
  })
})

describe('CSV', () => {
  test('a UTF-16 file with a caption row reads as labelled rows', async () => {
    const r = await extracted(`${CSV}Unstructured-IO_unstructured__stanley-cups-utf-16.csv`)
    expect(r.kind).toBe('csv')
    expect(r.encoding).toBe('utf-16be')
    expect(r.title).toBe('Stanley Cups')
    expect(r.text).toBe(
      'Stanley Cups\nTeam: Blues; Location: STL; Stanley Cups: 1\nTeam: Flyers; Location: PHI; Stanley Cups: 2\n' +
        'Team: Maple Leafs; Location: TOR; Stanley Cups: 13',
    )
  })

  test('a semicolon-delimited file is split on semicolons, commas stay inside cells', async () => {
    const r = await extracted(`${CSV}Unstructured-IO_unstructured__semicolon-delimited.csv`)
    const lines = r.text.split('\n').filter((l) => l)
    expect(lines).toHaveLength(4)
    expect(lines[0]).toBe('Lorem, ipsum: consectetur; dolor sit: adipiscing; amet: elit')
    expect(lines[1]).toBe('Lorem, ipsum: sed, do; dolor sit: eiusmod; amet: tempor incididunt')
    expect(lines[2]).toContain('dolor sit: et, dolore')
  })

  test('a small file renders "header: value" per row', async () => {
    const r = await extracted(`${CSV}deepset-ai_haystack__sample_1.csv`)
    expect(r.text).toBe('Name: John Doe; Age: 27\nName: Jane Smith; Age: 37\nName: Mike Johnson; Age: 47')
    expect(r.sections).toHaveLength(1)
  })

  test('titanic: every row is kept, empty cells skipped, sections titled by row range', async () => {
    const r = await extracted(`${CSV}mwaskom_seaborn-data__titanic.csv`)
    const lines = r.text.split('\n').filter((l) => l)
    expect(lines).toHaveLength(891)
    expect(lines[0]).toBe(
      'survived: 0; pclass: 3; sex: male; age: 22.0; sibsp: 1; parch: 0; fare: 7.25; embarked: S; class: Third; ' +
        'who: man; adult_male: True; embark_town: Southampton; alive: no; alone: False',
    )
    expect(r.sections[0]!.title).toMatch(/^Rows 1–\d+$/)
    expect(r.sections[r.sections.length - 1]!.title).toMatch(/^Rows \d+–891$/)
    for (const s of r.sections) expect(s.text.length).toBeLessThanOrEqual(SECTION_MAX_CHARS)
  })

  test('penguins and iris keep their numeric values as written', async () => {
    const p = await extracted(`${CSV}mwaskom_seaborn-data__penguins.csv`)
    expect(p.text.split('\n')[0]).toBe(
      'species: Adelie; island: Torgersen; bill_length_mm: 39.1; bill_depth_mm: 18.7; flipper_length_mm: 181; body_mass_g: 3750; sex: MALE',
    )
    expect(p.text.split('\n').filter((l) => l)).toHaveLength(344)
    const i = await extracted(`${CSV}mwaskom_seaborn-data__iris.csv`)
    expect(i.text.split('\n')[0]).toBe(
      'sepal_length: 5.1; sepal_width: 3.5; petal_length: 1.4; petal_width: 0.2; species: setosa',
    )
    expect(i.text.split('\n')).toHaveLength(150)
  })

  test('rows hundreds of columns wide stay whole, one section each', async () => {
    const r = await extracted(`${CSV}Unstructured-IO_unstructured__csv-with-long-lines.csv`)
    expect(titles(r)).toEqual(Array.from({ length: 10 }, (_, i) => `Row ${i + 1}`))
    expect(
      r.sections[0]!.text.startsWith('SpearmanCorrelationCoefficient: 1Freq CD161CD8TfrequencyUnstim; '),
    ).toBe(true)
    expect(r.sections[0]!.text).toContain('1Freq Ki67CD8frequencyUnstim: -0.285021097')
  })

  test('a TSV file is split on tabs', async () => {
    const r = await extracted('stanley-cups.tsv')
    expect(r.text).toContain('Team: Maple Leafs; Location: TOR; Stanley Cups: 13')
  })

  test('a cp1252 CSV without a header row is rendered as cells', async () => {
    const bytes = new Uint8Array([
      ...new TextEncoder().encode('1;Caf'),
      0xe9,
      ...new TextEncoder().encode(';5 '),
      0x80,
      0x0a,
    ])
    const once = await extractText({ bytes, filename: 'prices.csv' })
    expect(once.text).toBe('1 | Café | 5 €')
    expect(once.encoding).toBe('windows-1252')
  })
})
