import pkg from '../package.json'

/** The product's version (package.json), in a module of its own so the CLI can print it without loading the app. */
export const VERSION: string = pkg.version
