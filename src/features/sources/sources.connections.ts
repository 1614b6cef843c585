import type { TObject } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'
import type { Actor } from '../../platform/auth/principal'
import type { Clock } from '../../platform/clock/clock'
import { newId, type Random } from '../../platform/crypto/random'
import { SealBroken, type Sealer } from '../../platform/crypto/sealed'
import type { Store } from '../../platform/db/store'
import { fail, notFound, type ValidationIssue, validationFailed } from '../../platform/errors/errors'
import type { Outbox } from '../../platform/events/outbox'
import { EgressDenied } from '../../platform/net/egress'
import type { ConnectorKind, SourceKind } from './connectors/connector'
import type { ConnectionRow, SourcesRepo } from './sources.repo'

/** A connection as callers get it: settings in the clear, secrets only by name. */
export interface Connection {
  id: string
  workspaceId: string
  kind: SourceKind
  name: string
  settings: Record<string, unknown>
  secretsSet: string[]
  createdAt: number
  updatedAt: number
  sources: number
}

/** A connection opened for use: its secrets unsealed. Never returned to a caller or logged. */
export interface OpenConnection extends Connection {
  secrets: Record<string, unknown>
}

export interface ConnectionInput {
  kind: string
  name: string
  settings?: Record<string, unknown>
  secrets?: Record<string, unknown>
}

/**
 * Connections: a workspace's credentials for one kind of source. Fields are checked against the
 * kind's schemas before anything is written; secrets are sealed with the row id as context, so a
 * sealed value moved to another row (another tenant's) does not open.
 */
export class Connections {
  constructor(
    private readonly d: {
      repo: SourcesRepo
      kinds: ReadonlyMap<SourceKind, ConnectorKind>
      sealer: Sealer
      store: Store
      /** Connections added, changed and deleted are told (the audit log records them). */
      events: Outbox
      clock: Clock
      random: Random
      /** The outbound guard: an address in the settings it refuses is refused before anything is stored. */
      checkHost: (urlOrHost: string) => Promise<unknown>
    },
  ) {}

  async create(workspaceId: string, input: ConnectionInput, actor: Actor): Promise<Connection> {
    const kind = this.kindOf(input.kind)
    const settings = checked(kind.settings, input.settings ?? {}, 'settings')
    const secrets = checked(kind.secrets, input.secrets ?? {}, 'secrets')
    await this.reachable(settings)
    const now = this.d.clock.now().getTime()
    const id = newId(this.d.random, 'conn')
    const row: ConnectionRow = {
      id,
      workspaceId: workspaceId,
      kind: kind.kind,
      name: input.name.trim(),
      settings: JSON.stringify(settings),
      secrets: this.d.sealer.seal(JSON.stringify(secrets), id),
      secretsSet: JSON.stringify(setFields(secrets)),
      createdAt: now,
      updatedAt: now,
    }
    await this.d.store.unit(async () => {
      await this.d.repo.insertConnection(row)
      await this.told('connection.created', row, actor)
    })
    return this.view(row)
  }

  async list(workspaceId: string): Promise<Connection[]> {
    return Promise.all((await this.d.repo.connections(workspaceId)).map((r) => this.view(r)))
  }

  /** One connection of the workspace; another workspace's is a 404. */
  async get(workspaceId: string, id: string): Promise<Connection> {
    return this.view(await this.row(workspaceId, id))
  }

  /** The connection with its secrets, for a connector. */
  async open(workspaceId: string, id: string): Promise<OpenConnection> {
    const row = await this.row(workspaceId, id)
    let secrets: Record<string, unknown>
    try {
      secrets = JSON.parse(this.d.sealer.open(row.secrets, row.id)) as Record<string, unknown>
    } catch (e) {
      if (!(e instanceof SealBroken)) throw e
      throw fail(
        'source_credentials_rejected',
        'The stored credentials of this connection cannot be read (the instance secret changed?). Set them again.',
      )
    }
    return { ...(await this.view(row)), secrets }
  }

  /** The connection with its secrets, or with none when they no longer open. */
  private async openOr(workspaceId: string, id: string): Promise<OpenConnection> {
    try {
      return await this.open(workspaceId, id)
    } catch (e) {
      if ((e as { code?: string }).code !== 'source_credentials_rejected') throw e
      return { ...(await this.get(workspaceId, id)), secrets: {} }
    }
  }

  /**
   * Changes a connection: a new name, settings replaced when given, and secret fields replaced one
   * by one (a field given as null is cleared; one not given keeps its value).
   */
  async update(
    workspaceId: string,
    id: string,
    input: { name?: string; settings?: Record<string, unknown>; secrets?: Record<string, unknown | null> },
    actor: Actor,
  ): Promise<Connection> {
    // Secrets sealed under another instance secret cannot be kept, only set again.
    const current = await this.openOr(workspaceId, id)
    const kind = this.kindOf(current.kind)
    const settings = input.settings ? checked(kind.settings, input.settings, 'settings') : current.settings
    await this.reachable(settings)
    const merged: Record<string, unknown> = { ...current.secrets }
    for (const [k, v] of Object.entries(input.secrets ?? {})) {
      if (v === null) delete merged[k]
      else merged[k] = v
    }
    const secrets = checked(kind.secrets, merged, 'secrets')
    const row = await this.row(workspaceId, id)
    const next: ConnectionRow = {
      ...row,
      name: input.name?.trim() ?? row.name,
      settings: JSON.stringify(settings),
      secrets: this.d.sealer.seal(JSON.stringify(secrets), id),
      secretsSet: JSON.stringify(setFields(secrets)),
      updatedAt: this.d.clock.now().getTime(),
    }
    await this.d.store.unit(async () => {
      await this.d.repo.updateConnection(next)
      // Other settings may name another bucket or drive: the next syncs list everything again.
      if (next.settings !== row.settings) await this.d.repo.resetCursors(row.id)
      await this.told('connection.updated', next, actor, Object.keys(input.secrets ?? {}).sort())
    })
    return this.view(next)
  }

  /** Deletes a connection no source uses (409 `connection_in_use` otherwise). */
  async delete(workspaceId: string, id: string, actor: Actor): Promise<void> {
    const row = await this.row(workspaceId, id)
    // Counted in the unit that deletes: a source added meanwhile waits for it (or it for the source).
    await this.d.store.unit(async () => {
      const users = await this.d.repo.usersOf(row.id)
      if (users > 0) {
        throw fail(
          'connection_in_use',
          `${users} source(s) or import(s) use this connection. Delete them first.`,
          { sources: users },
        )
      }
      await this.d.repo.deleteConnection(row.id)
      await this.told('connection.deleted', row, actor)
    })
  }

  /** Tells a change of a connection, in its unit: names and kinds only, never a secret. */
  private async told(
    type: 'connection.created' | 'connection.updated' | 'connection.deleted',
    row: ConnectionRow,
    actor: Actor,
    secrets: string[] = [],
  ): Promise<void> {
    const base = { connectionId: row.id, kind: row.kind, name: row.name, actor }
    const workspaceId = row.workspaceId
    if (type === 'connection.updated') {
      await this.d.events.publish({ type, workspaceId, payload: { ...base, secrets } })
    } else await this.d.events.publish({ type, workspaceId, payload: base })
  }

  /**
   * Refuses settings that point at an address no source may be at (metadata, link-local; loopback
   * and this server's own unless allowed; private when denied), before anything is stored or any
   * port is contacted. A name that does not resolve now is left to validation, which says unreachable.
   */
  private async reachable(settings: Record<string, unknown>): Promise<void> {
    for (const [field, value] of Object.entries(settings)) {
      if (typeof value !== 'string' || !/^https?:\/\//i.test(value)) continue
      try {
        await this.d.checkHost(value)
      } catch (e) {
        if (!(e instanceof EgressDenied) || e.reason === 'unresolvable') continue
        throw fail('egress_denied', e.message, { field: `settings.${field}`, reason: e.reason })
      }
    }
  }

  /** The kind's definition; an unknown kind is a 422 naming the known ones. */
  kindOf(kind: string): ConnectorKind {
    const k = this.d.kinds.get(kind as SourceKind)
    if (!k) {
      throw validationFailed([
        {
          loc: ['body', 'kind'],
          msg: `Unknown kind of source "${kind}". Known: ${[...this.d.kinds.keys()].join(', ')}.`,
          type: 'enum',
        },
      ])
    }
    return k
  }

  private async row(workspaceId: string, id: string): Promise<ConnectionRow> {
    const row = await this.d.repo.connection(workspaceId, id)
    if (!row) throw notFound('Connection')
    return row
  }

  private async view(r: ConnectionRow): Promise<Connection> {
    return {
      id: r.id,
      workspaceId: r.workspaceId,
      kind: r.kind,
      name: r.name,
      settings: JSON.parse(r.settings) as Record<string, unknown>,
      secretsSet: JSON.parse(r.secretsSet) as string[],
      createdAt: r.createdAt,
      updatedAt: r.updatedAt,
      sources: await this.d.repo.usersOf(r.id),
    }
  }
}

/** Checks fields against a kind's schema (unknown fields refused); a 422 lists every problem. */
function checked(schema: TObject, value: Record<string, unknown>, field: string): Record<string, unknown> {
  const strict = { ...schema, additionalProperties: false }
  if (Value.Check(strict, value)) return value
  const issues: ValidationIssue[] = [...Value.Errors(strict, value)].map((e) => ({
    loc: ['body', field, ...e.path.split('/').filter(Boolean)],
    // The message names the rule, never the value: a secret of the wrong shape is not echoed.
    msg: e.message,
    type: 'value_error',
  }))
  throw validationFailed(issues)
}

/** The names of the secret fields that hold a value. */
function setFields(secrets: Record<string, unknown>): string[] {
  return Object.keys(secrets)
    .filter((k) => secrets[k] !== undefined && secrets[k] !== null && secrets[k] !== '')
    .sort()
}
