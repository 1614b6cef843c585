/**
 * "Test the connection": the server checks the stored settings against the provider (its discovery
 * document, its signing keys, the client at its token endpoint) and the page lists each check with
 * what was found or exactly what failed.
 */
import { useState } from 'preact/hooks'
import { testSso } from '../api/identity'
import type { SsoCheck } from '../api/types'
import { useAction } from '../lib/action'
import { Button, ErrorBox } from './ui'

const CHECK_NAMES: Record<string, string> = {
  discovery: 'Discovery document',
  jwks: 'Signing keys (JWKS)',
  token_endpoint: 'Client at the token endpoint',
}

/** A check's name as the page says it. */
export function checkName(name: string): string {
  return CHECK_NAMES[name] ?? name
}

/** The test button and, once run, each check's result. */
export function SsoChecks() {
  const [result, setResult] = useState<SsoCheck | null>(null)
  const test = useAction(async () => {
    setResult(null)
    setResult(await testSso())
  })
  return (
    <section class="card stack" aria-labelledby="sso-test-h">
      <h2 id="sso-test-h" class="card-title">
        Test the connection
      </h2>
      <p class="hint">
        Checks the saved settings against the provider, without signing anyone in. Save changes first.
      </p>
      <div>
        <Button busy={test.busy} onClick={() => test.run()}>
          Run the test
        </Button>
      </div>
      <ErrorBox error={test.error} />
      {result && (
        <div class="stack" role="status">
          <p>
            {result.ok ? (
              <span class="badge badge-ok">All checks passed</span>
            ) : (
              <span class="badge badge-error">A check failed</span>
            )}
          </p>
          <ul class="sso-checks" aria-label="Test results">
            {result.checks.map((c) => (
              <li key={c.name}>
                <span class={c.ok ? 'badge badge-ok' : 'badge badge-error'}>
                  {c.ok ? 'Passed' : 'Failed'}
                </span>{' '}
                <strong>{checkName(c.name)}</strong>
                <span class="sso-check-detail">{c.detail}</span>
              </li>
            ))}
          </ul>
        </div>
      )}
    </section>
  )
}
