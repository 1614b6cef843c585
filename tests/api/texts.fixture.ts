import type { FixtureFile } from '../helpers/ready-base'

/** Three short documents on distinct topics, for the answer, compare, scale and economics tests. */
export const THREE_TOPICS: FixtureFile[] = [
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

/** Two one-sentence documents, for the tests of a saturated or failing engine. */
export const TWO_SENTENCES: FixtureFile[] = [
  {
    path: 'rhine.txt',
    text: 'The Rhine begins in the Swiss canton of Graubünden and empties into the North Sea.',
  },
  {
    path: 'oil.txt',
    text: 'The 1973 oil crisis began in October 1973 when OAPEC proclaimed an oil embargo.',
  },
]

/**
 * Two short company policies, for the support check: questions that share their words without
 * asking what they say ("How many days before departure do employees book hotels?").
 */
export const TWO_POLICIES: FixtureFile[] = [
  {
    path: 'travel-policy.md',
    text:
      '# Travel policy\n\nEmployees book flights through the travel desk at least 14 days before departure. ' +
      'Economy class is used for flights shorter than six hours.',
  },
  {
    path: 'holidays.md',
    text: '# Holidays\n\nFull-time staff have 27 days of paid leave a year, approved by the team lead.',
  },
]
