import type { FixtureFile } from '../helpers/ready-base'

/** Three short documents on distinct topics, shared by the compare, scale and economics tests. */
export const FILES: FixtureFile[] = [
  {
    path: 'oil.txt',
    text:
      'The 1973 oil crisis began in October 1973 when the members of OAPEC proclaimed an oil embargo. ' +
      'By the end of the embargo in March 1974, the price of oil had risen from 3 dollars per barrel to nearly 12 dollars.',
  },
  {
    path: 'plague.txt',
    text:
      'The Black Death was a bubonic plague pandemic occurring in Afro-Eurasia from 1346 to 1353. ' +
      'It is estimated to have killed 75 to 200 million people. The plague was carried by fleas living on black rats.',
  },
  {
    path: 'rhine.txt',
    text:
      'The Rhine is a European river that begins in the Swiss canton of Graubünden. ' +
      'It flows through Germany and the Netherlands and empties into the North Sea.',
  },
]

/** Bytes in the GB of the memory price. */
export const GB = 1024 ** 3

/**
 * Closeness for rounded figures: within `rel` of the larger, or within `abs` (money is sent with six
 * significant digits and CPU times with microsecond precision).
 */
export function near(a: number, b: number, rel = 1e-4, abs = 0): boolean {
  return Math.abs(a - b) <= Math.max(abs, rel * Math.max(Math.abs(a), Math.abs(b)))
}
