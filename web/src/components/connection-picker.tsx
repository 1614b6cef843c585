/**
 * Picks the connection a source or an import reads through: one the workspace has, or a new one
 * (admins only: `POST /v1/connections` is an admin route) with its kind's fields. Secrets are typed
 * into password inputs and never shown back: an existing connection lists them as "set".
 */
import { useEffect, useId, useState } from 'preact/hooks'
import { createConnection } from '../api/sources'
import type { Connection, ConnectionReq } from '../api/types'
import { type KindField, kindInfo, kindLabel, SOURCE_KINDS } from '../lib/source-kinds'
import { Field } from './ui'

type Values = Record<string, string | boolean>

/** The picker's state: an existing connection's id, or '' and the new connection's fields. */
export interface ConnectionChoice {
  id: string
  kind: string
  name: string
  values: Values
}

/** Fields of `kind` that apply with these values (Drive asks for different ones by sign-in). */
function fieldsFor(kind: string, values: Values): KindField[] {
  return kindInfo(kind).fields.filter((f) => !f.when || f.when(values))
}

/** A select's value when none was picked yet is its first option. */
function currentValue(f: KindField, values: Values): string | boolean {
  return (
    values[f.name] ??
    (f.input === 'select' ? (f.options?.[0]?.value ?? '') : f.input === 'checkbox' ? false : '')
  )
}

/** The body of `POST /v1/connections` for a new connection; empty optional fields are left out. */
function connectionBody(c: ConnectionChoice): ConnectionReq {
  const settings: Values = {}
  const secrets: Values = {}
  for (const f of fieldsFor(c.kind, c.values)) {
    let v = currentValue(f, c.values)
    if (typeof v === 'string') {
      v = v.trim()
      // A key copied from a JSON key file writes its line breaks as \n; a one-line input keeps them so.
      if (f.secret) v = v.replace(/\\n/g, '\n')
      if (v === '') continue
    }
    if (f.secret) secrets[f.name] = v
    else settings[f.name] = v
  }
  return { kind: c.kind, name: c.name.trim(), settings, secrets }
}

/**
 * The picker's state over `connections`: the first one is picked once they load (a new one when
 * there is none). `resolve` answers the picked connection, creating it first when it is new; a
 * created one stays picked, so trying again after a refused folder does not create it twice.
 */
export function useConnectionChoice(
  connections: Connection[] | undefined,
  onCreated: (c: Connection) => void,
) {
  const [choice, setChoice] = useState<ConnectionChoice>({ id: '', kind: 'folder', name: '', values: {} })
  const [touched, setTouched] = useState(false)
  useEffect(() => {
    if (!touched && connections && connections.length > 0 && choice.id === '') {
      setChoice((c) => ({ ...c, id: connections[0]!.id }))
    }
  }, [connections])
  const picked = connections?.find((c) => c.id === choice.id)
  const update = (next: Partial<ConnectionChoice>) => {
    setTouched(true)
    setChoice((c) => ({ ...c, ...next }))
  }
  const resolve = async (): Promise<Connection> => {
    if (picked) return picked
    const created = await createConnection(connectionBody(choice))
    setChoice((c) => ({ ...c, id: created.id, values: {} }))
    onCreated(created)
    return created
  }
  return { choice, update, kind: picked?.kind ?? choice.kind, picked, resolve }
}

export type ConnectionChoiceState = ReturnType<typeof useConnectionChoice>

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
        props.admin && <NewConnection choice={choice} update={update} />
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

/** The new connection's kind, name and the kind's fields. */
function NewConnection(props: { choice: ConnectionChoice; update: (c: Partial<ConnectionChoice>) => void }) {
  const kindId = useId()
  const { choice, update } = props
  const set = (name: string, v: string | boolean) => update({ values: { ...choice.values, [name]: v } })
  return (
    <fieldset class="stack new-connection">
      <legend>New connection</legend>
      <div class="field">
        <label for={kindId}>Kind</label>
        <select
          id={kindId}
          value={choice.kind}
          onChange={(e) => update({ kind: e.currentTarget.value, values: {} })}
        >
          {SOURCE_KINDS.map((k) => (
            <option key={k.kind} value={k.kind}>
              {k.label}
            </option>
          ))}
        </select>
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
