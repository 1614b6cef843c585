/** A usage or start-up error of a subcommand: its message is printed, the process exits with `exitCode` (2: usage). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message)
    this.name = 'CliError'
  }
}
