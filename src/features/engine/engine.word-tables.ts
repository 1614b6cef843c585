import {
  adoptSynonyms,
  prepareHypernyms,
  prepareStaticVectors,
  prepareSynonyms,
  type SynonymTable,
} from './text/index'

/**
 * The tables questions read (WordNet's synonyms and noun senses, the built-in static vectors),
 * loaded once a process. They can be read elsewhere (a compile thread, once a run has indexed its
 * text: its answer brings all three, CompileThreads.synonyms) and adopted here, so that the event
 * loop does not read them as a run ends.
 */
export class WordTables {
  private building: Promise<void> | undefined
  /** Every table is this thread's (load has run): nothing to build elsewhere or wait for. */
  private loaded = false

  constructor(private readonly buildElsewhere?: () => Promise<SynonymTable>) {}

  /**
   * Starts building the synonym table elsewhere, once a process; nothing to do without a builder or
   * once the tables are loaded here (a server that held bases at start-up: questions must not wait
   * for a table it has).
   */
  startElsewhere(): void {
    if (this.loaded) return
    this.building ??= this.buildElsewhere?.().then(adoptSynonyms, () => {})
  }

  /** Resolves once a table being built elsewhere is adopted (undefined when none is, or once loaded here). */
  ready(): Promise<void> | undefined {
    return this.loaded ? undefined : this.building
  }

  /** Loads every table now (after one being built elsewhere: a failure there builds it here). */
  async load(): Promise<void> {
    await this.building
    prepareSynonyms()
    prepareHypernyms()
    // The support check reads the built-in vectors whatever re-ranks by meaning.
    prepareStaticVectors()
    this.loaded = true
  }
}
