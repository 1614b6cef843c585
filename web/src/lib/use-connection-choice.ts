/**
 * The state of a connection picker (components/connection-picker.tsx): the connection picked, or
 * the new one's kind and fields, the kinds this workspace can use, and the work that needs the
 * connection, which creates it first when it is new and deletes it again when the work is refused.
 */
import { useEffect, useState } from 'preact/hooks'
import { createConnection, deleteConnection, listSourceKinds } from '../api/sources'
import type { Connection, ConnectionReq } from '../api/types'
import { type KindField, kindInfo, SOURCE_KINDS } from './source-kinds'
import { useLoad } from './use-load'

export type Values = Record<string, string | boolean>

/** The picker's state: an existing connection's id, or '' and the new connection's fields. */
export interface ConnectionChoice {
  id: string
  kind: string
  name: string
  values: Values
}

/** Fields of `kind` that apply with these values (Drive asks for different ones by sign-in). */
export function fieldsFor(kind: string, values: Values): KindField[] {
  return kindInfo(kind).fields.filter((f) => !f.when || f.when(values))
}

/** A select's value when none was picked yet is its first option. */
export function currentValue(f: KindField, values: Values): string | boolean {
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
 * there is none), and a new one is offered only of the kinds this workspace can use
 * (`GET /v1/source-kinds`: a server folder needs a folder granted by the operator). `withConnection`
 * runs the work that needs the connection (adding a source, starting an import), creating the
 * connection first when it is new; when that work is refused, the connection made for it is
 * deleted again, so a refusal leaves nothing behind and a corrected folder does not make a second.
 */
export function useConnectionChoice(
  connections: Connection[] | undefined,
  onCreated: (c: Connection) => void,
) {
  const [choice, setChoice] = useState<ConnectionChoice>({ id: '', kind: 'folder', name: '', values: {} })
  const [touched, setTouched] = useState(false)
  const states = useLoad((signal) => listSourceKinds(signal), [])
  // Unknown (the list could not be had): every kind is offered, and the server refuses what it must.
  const offered = states.data
    ? SOURCE_KINDS.filter((k) => states.data?.some((s) => s.kind === k.kind && s.enabled))
    : states.error
      ? SOURCE_KINDS
      : null
  const off = (states.data ?? []).filter((s) => !s.enabled)
  useEffect(() => {
    if (!touched && connections && connections.length > 0 && choice.id === '') {
      setChoice((c) => ({ ...c, id: connections[0]!.id }))
    }
  }, [connections])
  // A kind that is off is never the one offered first.
  useEffect(() => {
    if (offered && offered.length > 0 && !offered.some((k) => k.kind === choice.kind)) {
      setChoice((c) => ({ ...c, kind: offered[0]!.kind, values: {} }))
    }
  }, [states.data, states.error])
  const picked = connections?.find((c) => c.id === choice.id)
  const update = (next: Partial<ConnectionChoice>) => {
    setTouched(true)
    setChoice((c) => ({ ...c, ...next }))
  }
  const withConnection = async <T>(work: (c: Connection) => Promise<T>): Promise<T> => {
    if (picked) return work(picked)
    const created = await createConnection(connectionBody(choice))
    let out: T
    try {
      out = await work(created)
    } catch (e) {
      await deleteConnection(created.id).catch(() => undefined)
      throw e
    }
    setChoice((c) => ({ ...c, id: created.id, values: {} }))
    onCreated(created)
    return out
  }
  return { choice, update, kind: picked?.kind ?? choice.kind, picked, offered, off, withConnection }
}

export type ConnectionChoiceState = ReturnType<typeof useConnectionChoice>
