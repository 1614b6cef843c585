/**
 * The IP allowlist editor: the entries one a line, your address as the server sees it and whether
 * it is listed, the switch, and each bad entry's error under it. A list that would leave you out is
 * saved only after you confirm you will lose access from this address.
 */
import { useState } from 'preact/hooks'
import { ApiError } from '../api/client'
import { putAllowlist } from '../api/security'
import type { Allowlist } from '../api/types'
import { useAction } from '../lib/action'
import { Button, Confirm, ErrorBox, Note } from './ui'

/** The server's 422 names a bad entry by its place in the sent list: `['body', 'cidrs', i]`. */
function entryErrors(e: Error | null, sentRows: number[]): Record<number, string> {
  if (!(e instanceof ApiError) || e.status !== 422 || !Array.isArray(e.details)) return {}
  const out: Record<number, string> = {}
  for (const d of e.details as { loc?: unknown[]; msg?: string }[]) {
    const i = d.loc?.[2]
    if (typeof i === 'number' && sentRows[i] !== undefined) out[sentRows[i]] = d.msg ?? 'Not a valid entry'
  }
  return out
}

/** The allowlist card; `onSaved` gets the list as saved (normalized). */
export function AllowlistForm(props: { current: Allowlist; onSaved: (a: Allowlist) => void }) {
  const { current } = props
  const [rows, setRows] = useState<string[]>(current.cidrs.length > 0 ? current.cidrs : [''])
  const [enabled, setEnabled] = useState(current.enabled)
  const [sentRows, setSentRows] = useState<number[]>([])
  const [lockout, setLockout] = useState<string | null>(null)
  const [saved, setSaved] = useState(false)
  const save = useAction(async (confirm: boolean) => {
    setSaved(false)
    const sent = rows.map((r, i) => ({ r: r.trim(), i })).filter((x) => x.r !== '')
    setSentRows(sent.map((x) => x.i))
    try {
      const next = await putAllowlist({
        enabled,
        cidrs: sent.map((x) => x.r),
        ...(confirm ? { confirm_lockout: true } : {}),
      })
      setLockout(null)
      setRows(next.cidrs.length > 0 ? next.cidrs : [''])
      setSaved(true)
      props.onSaved(next)
    } catch (e) {
      if (e instanceof ApiError && e.code === 'would_lock_out') {
        setLockout(current.your_address)
        return
      }
      throw e
    }
  })
  const errors = entryErrors(save.error, sentRows)
  const perEntry = Object.keys(errors).length > 0
  const set = (i: number, v: string) => setRows((rs) => rs.map((r, j) => (j === i ? v : r)))
  const mine = current.your_address
  return (
    <form
      class="card stack"
      aria-labelledby="allowlist-h"
      onSubmit={(e) => {
        e.preventDefault()
        save.run(false)
      }}
    >
      <h2 id="allowlist-h" class="card-title">
        IP allowlist
      </h2>
      <p class="hint">
        When on, every request with this workspace's sessions and API keys (the console, the API, MCP) from an
        address not listed is refused. Entries are addresses or CIDR ranges: <code>203.0.113.7</code>,{' '}
        <code>10.0.0.0/8</code>, <code>2001:db8::/32</code>.
      </p>
      <div class={`alert alert-${current.your_address_listed ? 'ok' : 'warn'}`} role="note">
        Your address: <code>{mine}</code> —{' '}
        {current.your_address_listed ? 'listed in the saved list.' : 'not listed in the saved list.'}{' '}
        {!rows.some((r) => r.trim() === mine) && (
          <button
            type="button"
            class="btn btn-plain btn-small"
            onClick={() => setRows((rs) => [...rs.filter((r) => r.trim() !== ''), mine])}
          >
            Add my address
          </button>
        )}
      </div>
      <fieldset>
        <legend>Allowed addresses and ranges</legend>
        <ul class="cidr-list">
          {rows.map((r, i) => (
            <li key={i} class="cidr-row">
              <input
                aria-label={`Entry ${i + 1}`}
                value={r}
                aria-invalid={errors[i] ? true : undefined}
                aria-describedby={errors[i] ? `cidr-err-${i}` : undefined}
                onInput={(e) => set(i, e.currentTarget.value)}
              />
              <button
                type="button"
                class="btn btn-plain btn-small"
                aria-label={`Remove entry ${i + 1}`}
                onClick={() => setRows((rs) => (rs.length > 1 ? rs.filter((_, j) => j !== i) : ['']))}
              >
                Remove
              </button>
              {errors[i] && (
                <p class="cidr-error" id={`cidr-err-${i}`}>
                  {errors[i]}
                </p>
              )}
            </li>
          ))}
        </ul>
        <div>
          <Button onClick={() => setRows((rs) => [...rs, ''])}>Add an entry</Button>
        </div>
      </fieldset>
      <label class="check switch">
        <input type="checkbox" checked={enabled} onChange={(e) => setEnabled(e.currentTarget.checked)} />
        <span>
          <strong>Enforce the allowlist</strong>{' '}
          <span class="muted">— refuse this workspace's credentials from any other address</span>
        </span>
      </label>
      {perEntry ? (
        <div class="alert alert-error" role="alert">
          Some entries are not addresses or ranges; see the errors under them.
        </div>
      ) : (
        <ErrorBox error={save.error} />
      )}
      {saved && !save.busy && <Note kind="ok">Allowlist saved.</Note>}
      <div>
        <Button variant="primary" type="submit" busy={save.busy && !lockout}>
          Save allowlist
        </Button>
      </div>
      <Confirm
        open={lockout !== null}
        title="Lock yourself out?"
        confirmLabel="Save and lose access"
        busy={save.busy}
        onConfirm={() => save.run(true)}
        onCancel={() => setLockout(null)}
      >
        <p>
          Your address <code>{lockout}</code> is not in this list. Once it is saved, this session and any API
          key used from here are refused from the next request on; only someone at a listed address can change
          the list back.
        </p>
      </Confirm>
    </form>
  )
}
