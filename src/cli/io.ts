// What the server's clients on the command line (`engram push`, `engram onboard`) print to and
// read from, injected so that tests and the real terminal differ only here.

/** Where messages go. */
export interface CliIo {
  out: (line: string) => void
  err: (line: string) => void
  /** Whether stderr is a terminal (the progress bar is drawn only then). */
  tty: boolean
  sleep: (ms: number) => Promise<void>
}

/** The environment variables the clients read: the key and the server URL, so neither need be typed. */
export type CliEnv = Record<string, string | undefined>

/** The real terminal. */
export function terminalIo(): CliIo {
  return {
    out: (l) => console.log(l),
    err: (l) => console.error(l),
    tty: process.stderr.isTTY === true,
    sleep: (ms) => Bun.sleep(ms),
  }
}
