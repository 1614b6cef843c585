/** "Verify the log": walks the workspace's hash chain and says whether it holds, and where not. */

import { useState } from 'preact/hooks'
import { verifyAudit } from '../api/audit'
import type { AuditVerify } from '../api/types'
import { useAction } from '../lib/action'
import { Button, ErrorBox } from './ui'

const REASONS: Record<NonNullable<AuditVerify['first_broken']>['reason'], string> = {
  hash_mismatch: 'its contents do not match its hash (the row was altered)',
  prev_hash_mismatch: 'it does not link to the row before it (a row was removed or inserted)',
  seq_gap: 'its place in the chain skips a number (a row was removed)',
  unchained: 'it was never chained',
}

/** The check's button and its result. */
export function AuditVerifyCard() {
  const [result, setResult] = useState<AuditVerify | null>(null)
  const verify = useAction(async () => setResult(await verifyAudit()))
  const broken = result?.first_broken
  return (
    <section class="card stack" aria-labelledby="audit-verify-h">
      <h2 id="audit-verify-h" class="card-title">
        Integrity
      </h2>
      <p class="hint">
        Each row holds the hash of the row before it. Checking walks the whole chain: a row altered, removed
        or inserted since it was written breaks it.
      </p>
      <div>
        <Button onClick={() => verify.run()} busy={verify.busy}>
          Verify the log
        </Button>
      </div>
      <ErrorBox error={verify.error} />
      {result && (
        <div class={`alert alert-${result.ok ? 'ok' : 'error'}`} role="status">
          {result.ok ? (
            <>
              <strong>The chain holds.</strong> {result.checked} rows checked
              {result.head && (
                <>
                  ; the last is row {result.head.seq} (hash <code>{result.head.hash.slice(0, 16)}…</code>).
                  Note it: a later check that ends earlier means rows were cut from the end
                </>
              )}
              .
            </>
          ) : (
            <>
              <strong>The chain is broken.</strong> {result.checked} rows checked; the first broken row is{' '}
              {broken?.seq != null ? `row ${broken.seq}` : 'a row'} (<code>{broken?.id}</code>):{' '}
              {broken ? REASONS[broken.reason] : ''}.
            </>
          )}
        </div>
      )}
    </section>
  )
}
