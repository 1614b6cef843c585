import { describe, expect, test } from 'bun:test'
import { blacklist, isValid } from 'mailchecker'
import { isThrowawayAddress } from '../../src/features/accounts/accounts.disposable'

// The throwaway-domain check reads mailchecker's list as text instead of running its module (whose
// Set of 55,000 strings was 11 MB of an idle server): it must refuse exactly what the package does.
describe('throwaway addresses', () => {
  test('listed domains, and subdomains of them, are refused as the package refuses them', () => {
    const all = [...blacklist()]
    expect(all.length).toBeGreaterThan(10_000)
    // Every 50th domain of the list, its first and its last (each look-up reads the list's text).
    const domains = [...all.filter((_, i) => i % 50 === 0), all.at(-1)!]
    for (const d of domains) {
      for (const address of [`someone@${d}`, `Someone@Mail.${d.toUpperCase()}`]) {
        if (isThrowawayAddress(address) !== !isValid(address)) throw new Error(`differs on ${address}`)
      }
    }
  })

  test('ordinary and malformed addresses are answered as the package answers them', () => {
    const addresses = [
      'alice@example.com',
      'bob@company.co.uk',
      'carol@gmail.com',
      'dave@sub.team.example.org',
      'no-at-sign.example.com',
      'two@@example.com',
      'trailing@example.',
      'space in@example.com',
      '"quoted"@example.com',
      'x@localhost',
      'user@[192.168.0.1]',
      'use strict@example.com',
      'a@use',
      'a@strict',
      '',
    ]
    for (const a of addresses) expect([a, isThrowawayAddress(a)]).toEqual([a, !isValid(a)])
    expect(isThrowawayAddress('alice@example.com')).toBe(false)
    expect(isThrowawayAddress('someone@mailinator.com')).toBe(true)
    expect(isThrowawayAddress('someone@x.mailinator.com')).toBe(true)
  })
})
