import { describe, expect, test } from 'bun:test'
import { blocks } from '../../../web/src/components/legal-dialog'
import { capAmount, capLevel } from '../../../web/src/components/plan-caps'
import { money } from '../../../web/src/components/plan-offers'

// Issue 37, the console's Plan page: how full a cap reads (the bar's colour and badge), amounts in
// people's units, prices in the plan's currency, and a legal text's paragraphs in its dialog.

describe("the Plan page's numbers", () => {
  test('a cap is ok below 80 %, nearly full from 80 %, full at and past its limit; unlimited never fills', () => {
    expect(capLevel(7, 10)).toBe('ok')
    expect(capLevel(8, 10)).toBe('warn')
    expect(capLevel(4, 5)).toBe('warn')
    expect(capLevel(9, 10)).toBe('warn')
    expect(capLevel(10, 10)).toBe('full')
    expect(capLevel(12, 10)).toBe('full')
    expect(capLevel(0, 0)).toBe('full')
    expect(capLevel(1_000_000, null)).toBe('ok')
  })

  test("amounts: storage in bytes' units, counts with separators, null unlimited", () => {
    expect(capAmount('storage_bytes', 1024 ** 3)).toBe('1 GB')
    expect(capAmount('storage_bytes', 0)).toBe('0 B')
    expect(capAmount('documents', 50_000)).toBe('50,000')
    expect(capAmount('seats', null)).toBe('unlimited')
  })

  test("prices in the plan's currency, cents only when there are some", () => {
    expect(money(49, 'usd')).toBe('$49')
    expect(money(1990, 'usd')).toBe('$1,990')
    expect(money(9.5, 'eur')).toBe('€9.50')
  })
})

describe('a legal text in its dialog', () => {
  test('blank lines part paragraphs, wrapped lines join, headings and list items keep their lines', () => {
    const text =
      '# Terms\n\nIt is not legal advice and is not a\ncontract anyone has reviewed.\n\n1. One\n2. Two\n   continued.\n'
    expect(blocks(text)).toEqual([
      '# Terms',
      'It is not legal advice and is not a contract anyone has reviewed.',
      '1. One\n2. Two continued.',
    ])
  })
})
