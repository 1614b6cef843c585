/**
 * Picks the connection a source or an import reads through: one the workspace has, or a new one
 * (admins only: `POST /v1/connections` is an admin route) of a kind the workspace can use, with its
 * kind's fields. Secrets are typed into password inputs and never shown back: an existing
 * connection lists them as "set".
 */
import { useId } from 'preact/hooks'
import type { Connection, SourceKindState } from '../api/types'
import { type KindField, kindInfo, kindLabel, type SourceKindInfo } from '../lib/source-kinds'
import {
  type ConnectionChoice,
  type ConnectionChoiceState,
  currentValue,
  fieldsFor,
} from '../lib/use-connection-choice'
import { Field, Loading } from './ui'

/** The connection select, then the picked connection's summary or the new connection's fields. */
export function ConnectionPicker(props: {
  state: ConnectionChoiceState
  connections: Connection[]
  admin: boolean
}) {
  const id = useId()
  const { choice, update, picked } = props.state
  const none = props.connections.length === 0
  return (
    <>
      <div class="field">
        <label for={id}>Connection</label>
        <select id={id} value={choice.id} onChange={(e) => update({ id: e.currentTarget.value })}>
          {props.connections.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name} ({kindLabel(c.kind)})
            </option>
          ))}
          <option value="" disabled={!props.admin}>
            New connection…
          </option>
        </select>
        {!props.admin && (
          <p class="hint">
            {none ? 'This workspace has no connection yet. ' : ''}Only a workspace admin can add a connection.
          </p>
        )}
      </div>
      {picked ? (
        <ConnectionSummary connection={picked} />
      ) : (
        props.admin && (
          <NewConnection
            choice={choice}
            update={update}
            offered={props.state.offered}
            off={props.state.off}
          />
        )
      )}
    </>
  )
}

/** An existing connection's settings, and which secrets it holds (never their values). */
function ConnectionSummary({ connection }: { connection: Connection }) {
  const info = kindInfo(connection.kind)
  const label = (name: string) => info.fields.find((f) => f.name === name)?.label ?? name
  const settings = Object.entries(connection.settings)
  return (
    <dl class="connection-summary">
      <div>
        <dt>Kind</dt>
        <dd>{kindLabel(connection.kind)}</dd>
      </div>
      {settings.map(([k, v]) => (
        <div key={k}>
          <dt>{label(k)}</dt>
          <dd>{typeof v === 'boolean' ? (v ? 'yes' : 'no') : String(v)}</dd>
        </div>
      ))}
      {connection.secrets_set.map((k) => (
        <div key={k}>
          <dt>{label(k)}</dt>
          <dd>
            <span class="badge badge-ok">set</span>
          </dd>
        </div>
      ))}
    </dl>
  )
}

/** The new connection's kind (of those on), name and the kind's fields; what is off, and why. */
function NewConnection(props: {
  choice: ConnectionChoice
  update: (c: Partial<ConnectionChoice>) => void
  offered: SourceKindInfo[] | null
  off: SourceKindState[]
}) {
  const kindId = useId()
  const { choice, update, offered } = props
  const set = (name: string, v: string | boolean) => update({ values: { ...choice.values, [name]: v } })
  if (!offered) return <Loading label="Loading the kinds of source…" />
  return (
    <fieldset class="stack new-connection">
      <legend>New connection</legend>
      <div class="field">
        <label for={kindId}>Kind</label>
        <select
          id={kindId}
          value={choice.kind}
          aria-describedby={props.off.length ? `${kindId}-off` : undefined}
          onChange={(e) => update({ kind: e.currentTarget.value, values: {} })}
        >
          {offered.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </select>
        {props.off.length > 0 && (
          <p class="hint" id={`${kindId}-off`}>
            {props.off.map((k) => (
              <span key={k.kind}>
                {kindLabel(k.kind)} is not offered. {k.reason}{' '}
              </span>
            ))}
          </p>
        )}
      </div>
      <Field
        label="Connection name"
        required
        maxLength={120}
        autocomplete="off"
        value={choice.name}
        hint="Sources of every base can share it."
        onInput={(e) => update({ name: e.currentTarget.value })}
      />
      {fieldsFor(choice.kind, choice.values).map((f) => (
        <KindInput
          key={`${choice.kind}-${f.name}`}
          field={f}
          value={currentValue(f, choice.values)}
          onChange={set}
        />
      ))}
      {choice.kind === 'folder' && (
        <p class="hint">
          A server folder needs no credentials: the server reads it under the roots its operator allows.
        </p>
      )}
    </fieldset>
  )
}

/** One field of a kind: a text or password input, a yes/no, or a choice. */
function KindInput(props: {
  field: KindField
  value: string | boolean
  onChange: (name: string, v: string | boolean) => void
}) {
  const id = useId()
  const f = props.field
  if (f.input === 'checkbox') {
    return (
      <label class="check">
        <input
          type="checkbox"
          checked={props.value === true}
          onChange={(e) => props.onChange(f.name, e.currentTarget.checked)}
        />
        {f.label}
      </label>
    )
  }
  if (f.input === 'select') {
    return (
      <div class="field">
        <label for={id}>{f.label}</label>
        <select
          id={id}
          value={String(props.value)}
          onChange={(e) => props.onChange(f.name, e.currentTarget.value)}
        >
          {f.options?.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </select>
      </div>
    )
  }
  const common = {
    label: f.label,
    required: f.required,
    placeholder: f.placeholder,
    hint: f.hint,
    value: String(props.value),
    onInput: (e: Event) => props.onChange(f.name, (e.currentTarget as HTMLInputElement).value),
  }
  return f.secret ? (
    <Field {...common} type="password" autocomplete="new-password" />
  ) : (
    <Field {...common} autocomplete="off" />
  )
}
