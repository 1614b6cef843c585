// Writes assets/engine/use-lite-kernel.wasm: the built-in encoder's dense-layer kernel, assembled
// from its text (src/features/engine/support/use-lite-kernel.wat) by wabt, the WebAssembly Binary
// Toolkit's build for JavaScript (a devDependency: the executable loads the file, no assembler).
// Run: npx bun run scripts/build-use-lite-kernel.ts   (a unit test checks the committed file is current)
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import wabt from 'wabt'

/** The kernel's text, beside the code that loads it. */
export const USE_LITE_KERNEL_WAT = join(import.meta.dir, '../src/features/engine/support/use-lite-kernel.wat')

/** The kernel's bytes, assembled from its text (SIMD on, no names section). */
export async function assembleUseLiteKernel(): Promise<Uint8Array> {
  const module = (await wabt()).parseWat('use-lite-kernel.wat', readFileSync(USE_LITE_KERNEL_WAT, 'utf8'), {
    simd: true,
  })
  try {
    module.resolveNames()
    module.validate()
    return module.toBinary({ write_debug_names: false }).buffer
  } finally {
    module.destroy()
  }
}

if (import.meta.main) {
  const out = join(import.meta.dir, '../assets/engine/use-lite-kernel.wasm')
  const bytes = await assembleUseLiteKernel()
  writeFileSync(out, bytes)
  console.log(`wrote ${out} (${bytes.byteLength} bytes)`)
}
