// What the extraction sandbox's parent (extract.sandbox.ts) and child (extract.sandbox-child.ts)
// say to each other over the IPC channel; each side imports this, neither imports the other.
import type { PdfFailure } from './extract.pdf-worker-run.ts'
import type { ExtractOptions } from './extract.ts'
import type { ExtractResult } from './extract.types.ts'

/** The argument that makes the compiled executable act as an extraction child (src/main.ts). */
export const EXTRACT_CHILD_COMMAND = '__extract-child'

/** The exit code of a child that saw itself pass its memory budget. */
export const EXIT_OVER_BUDGET = 86

/** What the parent sends the child: one document. */
export interface SandboxRequest {
  type: 'extract'
  bytes: Uint8Array
  filename: string
  contentType?: string
  memoryMb: number
  options: ExtractOptions
}

/** What the child answers. */
export type SandboxReply =
  | { type: 'ready' }
  | { type: 'done'; result: ExtractResult }
  | { type: 'error'; failure: PdfFailure }
