import { afterAll } from 'bun:test'
import { removeBuiltBinary } from './binary'

// Preloaded by bunfig.toml: hooks of the whole test run. Bun fires no process 'exit' event under
// `bun test`, so what a run leaves in the temporary folder is removed here.
afterAll(() => {
  removeBuiltBinary()
})
