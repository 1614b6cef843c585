import { type ParseArgsConfig, parseArgs } from 'node:util'
import { CliError } from './cli-error'

type Options = NonNullable<ParseArgsConfig['options']>

/** A command's flags: node:util's option table, and how many positional arguments it takes. */
interface FlagSpec<O extends Options = Options> {
  options: O
  positionals?: 0 | 1
}

/** What parseArgs answers for these options (positionals are counted by parseFlags). */
type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ options: O; args: string[]; strict: true; allowPositionals: true }>
>

/**
 * Parses `args` with node:util's `parseArgs` in strict mode (`--flag value` and `--flag=value`). A
 * usage mistake becomes a CliError in the CLI's own words ("Unknown argument: X", "--flag needs a
 * value"), followed by `usage`, with `exitCode`. An empty value (`--data=`) is refused too: no flag
 * of this CLI means anything by an empty string.
 */
export function parseFlags<O extends Options>(
  args: string[],
  spec: FlagSpec<O>,
  usage: string,
  exitCode: number,
): Parsed<O> {
  const fail = (message: string) => new CliError(`${message}\n\n${usage}`, exitCode)
  let parsed: Parsed<O>
  try {
    parsed = parseArgs({
      options: spec.options,
      args,
      strict: true,
      allowPositionals: !!spec.positionals,
    }) as Parsed<O>
  } catch (e) {
    if (!String((e as { code?: unknown }).code).startsWith('ERR_PARSE_ARGS_')) throw e
    throw fail(describeMistake(args, spec) ?? (e as Error).message)
  }
  const extra = parsed.positionals[spec.positionals ?? 0]
  if (extra !== undefined) throw fail(`Unknown argument: ${extra}`)
  const empty = Object.entries(parsed.values).find(([, v]) => v === '')
  if (empty) throw fail(`--${empty[0]} needs a value`)
  return parsed
}

/**
 * Names the first argument strict parsing refused. parseArgs's own messages name the option but
 * also suggest syntax (`'--port=-XYZ'`) this CLI does not document, and their wording is not part
 * of its API (the error codes are); so the arguments are read again leniently, as tokens, and the
 * mistake is put the way this CLI always has. Undefined when none is found (the caller then falls
 * back to the library's message).
 */
function describeMistake(args: string[], spec: FlagSpec): string | undefined {
  const { options } = spec
  const { tokens } = parseArgs({ args, options, strict: false, allowPositionals: true, tokens: true })
  for (const t of tokens) {
    if (t.kind === 'positional' && !spec.positionals) return `Unknown argument: ${t.value}`
    if (t.kind !== 'option') continue
    const known = Object.hasOwn(options, t.name) ? options[t.name] : undefined
    if (!known) return `Unknown argument: ${t.rawName}`
    // Lenient parsing takes the next argument as the value even when it is a flag (`--base --url`).
    const missing = t.value === undefined || (!t.inlineValue && t.value.startsWith('-'))
    if (known.type === 'string' && missing) return `${t.rawName} needs a value`
    if (known.type === 'boolean' && t.value !== undefined) return `${t.rawName} takes no value`
  }
  return undefined
}
