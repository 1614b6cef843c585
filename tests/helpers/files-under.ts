import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Every file under `root`, as paths relative to it (`a/b.txt`); none when it does not exist. */
export function filesUnder(root: string): string[] {
  if (!existsSync(root)) return []
  const out: string[] = []
  const walk = (d: string, rel: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p, `${rel}${name}/`)
      else out.push(`${rel}${name}`)
    }
  }
  walk(root, '')
  return out
}
