/**
 * The audit filters: actor, action (or a family, `auth.*`), target, and a time window. Applied
 * when the form is sent; the times are the reader's local ones, sent as RFC 3339.
 */
import { useState } from 'preact/hooks'
import type { AuditFilters } from '../api/types'
import { Button, Field } from './ui'

/** A `datetime-local` value as an RFC 3339 instant; empty stays empty. */
function instant(local: string): string | undefined {
  if (!local) return undefined
  const d = new Date(local)
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString()
}

/** The filter form; `onApply` gets the filters to load with. */
export function AuditFilterForm(props: { onApply: (f: AuditFilters) => void }) {
  const [actor, setActor] = useState('')
  const [action, setAction] = useState('')
  const [target, setTarget] = useState('')
  const [since, setSince] = useState('')
  const [until, setUntil] = useState('')
  const apply = (e: Event) => {
    e.preventDefault()
    props.onApply({ actor, action, target, since: instant(since), until: instant(until) })
  }
  const clear = () => {
    for (const set of [setActor, setAction, setTarget, setSince, setUntil]) set('')
    props.onApply({})
  }
  return (
    <form class="card stack audit-filters" onSubmit={apply} aria-labelledby="audit-filters-h">
      <h2 id="audit-filters-h" class="card-title">
        Filters
      </h2>
      <div class="filter-grid">
        <Field
          label="Action"
          value={action}
          hint={
            <>
              e.g. <code>api_key.revoked</code>, or a family: <code>auth.*</code>
            </>
          }
          onInput={(e) => setAction(e.currentTarget.value)}
        />
        <Field
          label="Actor"
          value={actor}
          hint="A user id (usr_…) or an API key id (key_…)."
          onInput={(e) => setActor(e.currentTarget.value)}
        />
        <Field
          label="Target"
          value={target}
          hint="A document, base, key, user or connection id."
          onInput={(e) => setTarget(e.currentTarget.value)}
        />
        <Field
          label="From"
          type="datetime-local"
          value={since}
          hint="At or after, your time."
          onInput={(e) => setSince(e.currentTarget.value)}
        />
        <Field
          label="Until"
          type="datetime-local"
          value={until}
          hint="Before, your time."
          onInput={(e) => setUntil(e.currentTarget.value)}
        />
      </div>
      <div class="audit-actions">
        <Button variant="primary" type="submit">
          Apply filters
        </Button>
        <Button onClick={clear}>Clear</Button>
      </div>
    </form>
  )
}
