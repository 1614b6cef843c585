// What a deletion does to each kind of stored data, and when, as the code behaves: read from the
// delete paths (corpora.deletion.ts and the purgers ingest and the engine add), the orphan sweep
// (ingest/lib/sweep.ts), the outbox's pruning (events/dispatcher.ts), the idempotency store and the
// database settings (db/db.ts). `docs/governance.md` explains each line; a change to any of those
// paths changes this table in the same commit.
import { Type } from '@sinclair/typebox'
import type { Config } from '../../platform/config/config.load'
import { namedObject } from '../../platform/http/schema'

const Moment = Type.Object({
  when: Type.String({ description: 'In words: what makes it so.' }),
  after_seconds: Type.Union([Type.Integer(), Type.Null()], {
    description:
      "The longest wait after the delete answers, in seconds: 0 is before the answer; null when it is not bounded by this server (the operator's storage, backups or retention).",
  }),
})

export const ErasureTimelineResp = namedObject('ErasureTimelineResp', {
  storage: Type.Union([Type.Literal('local'), Type.Literal('s3')]),
  kinds: Type.Array(
    Type.Object({
      kind: Type.String(),
      what: Type.String({ description: 'What this kind of data holds.' }),
      unreachable: Moment,
      physically_gone: Moment,
    }),
  ),
  notes: Type.Array(Type.String()),
})

type Kind = {
  kind: string
  what: string
  unreachable: { when: string; after_seconds: number | null }
  physically_gone: { when: string; after_seconds: number | null }
}

/** The outbox keeps delivered events this long, then prunes them at most an hour late (dispatcher.ts). */
const OUTBOX_KEEP_S = 7 * 86_400 + 3600

const SQLITE_PAGES =
  'The rows are deleted when the delete commits; their bytes stay in free pages of engram.db and in frames of engram.db-wal until SQLite writes over them (the server does not VACUUM or use secure_delete).'

/** The timeline for this server's configuration. */
export function erasureTimeline(
  config: Pick<Config, 'storage' | 'api'> & { engine?: Pick<Config['engine'], 'shared_index'> },
) {
  const s3 = config.storage.driver === 's3'
  const store = s3
    ? "Deleted from the bucket (DeleteObject) before the delete answers; in a versioned bucket the old version stays until the bucket's own lifecycle rule removes it."
    : 'The file is unlinked from the data directory before the delete answers; its blocks are free space of the file system until reused.'
  const now = {
    when: 'Before the delete answers: the rows are gone in its transaction, so no route, answer or MCP tool finds it.',
    after_seconds: 0,
  }
  return {
    storage: s3 ? ('s3' as const) : ('local' as const),
    kinds: [
      ...documentKinds(store, s3, now),
      ...(config.engine?.shared_index ? [publishedIndex(store)] : []),
      ...keptKinds(config.api.idempotency_ttl_hours),
    ],
    notes: [
      "A base deletion does the same for every document of the base at once, deletes everything under the base's object prefix and drops its index table.",
      'Nothing the user deleted is served afterwards: every row a route reads is gone before the delete answers.',
      "With a customer-managed key (/v1/enterprise/kms-key, docs/encryption.md) the workspace's original files, text sidecars and cartridges are sealed under it: destroying the key at the KMS leaves every remaining copy of them unreadable, bucket versions and backups included. The database (rows, index, audit log) is not sealed by it.",
    ],
  }
}

type When = Kind['unreachable']

/** A shared index's published files (engine.sync.ts) and the other replicas' copies of the base. */
function publishedIndex(store: string): Kind {
  return {
    kind: 'published_index',
    what: "The base's published index (ENGRAM_SHARED_INDEX): its sections' passages and vectors in files of the object store, and each replica's copy of them in its own engram.db.",
    unreachable: {
      when: 'Before the delete answers: the base is published again without the sections, and every question on any replica first brings its copy to that publication.',
      after_seconds: 0,
    },
    physically_gone: {
      when: `The files that held the sections: ${store} Another replica's copy: removed when it takes the new publication (when told, or at its next question on the base); ${SQLITE_PAGES}`,
      after_seconds: null,
    },
  }
}

/** What the delete itself removes: the document's rows, objects, index entries, cartridges and jobs. */
function documentKinds(store: string, s3: boolean, now: When): Kind[] {
  return [
    {
      kind: 'document_rows',
      what: "A file's row and its sections' rows: path, title, type, size, counters.",
      unreachable: now,
      physically_gone: { when: SQLITE_PAGES, after_seconds: null },
    },
    {
      kind: 'raw_objects',
      what: 'The original file as uploaded, pushed or synced.',
      unreachable: now,
      physically_gone: {
        when: `${store} Content shared with another document of the same base stays while that document does. A delete interrupted by a crash leaves the object to the orphan sweep at the next start of the server.`,
        after_seconds: s3 ? null : 0,
      },
    },
    {
      kind: 'text_sidecars',
      what: 'The text extracted from each file, with its page ranges.',
      unreachable: now,
      physically_gone: { when: store, after_seconds: s3 ? null : 0 },
    },
    {
      kind: 'search_index',
      what: "The passages of the document's sections, their terms in the base's FTS5 index and their vectors.",
      unreachable: {
        when: "Before the delete answers: the engine removes the sections' passages and index entries, so no question is answered from them.",
        after_seconds: 0,
      },
      physically_gone: {
        when: `${SQLITE_PAGES} Deleting a base drops its own index table.`,
        after_seconds: null,
      },
    },
    {
      kind: 'cartridges',
      what: "The compiled cartridge of each section: a durable copy in the object store, a warm copy in this server's memory.",
      unreachable: {
        when: "Before the delete answers: the warm copy is dropped and the base's cart search forgets it.",
        after_seconds: 0,
      },
      physically_gone: {
        when: `The warm copy with the process memory it used. The durable copy: ${store} A cartridge still used by another document stays.`,
        after_seconds: s3 ? null : 0,
      },
    },
    {
      kind: 'extraction_jobs',
      what: "The queued extraction of the document's file (its path and keys).",
      unreachable: {
        when: 'Before the delete answers: pending jobs are deleted and their runs settled.',
        after_seconds: 0,
      },
      physically_gone: { when: SQLITE_PAGES, after_seconds: null },
    },
  ]
}

/** What outlives the delete for a while, or on purpose: events, replays, feedback, receipts, backups. */
function keptKinds(idempotencyHours: number): Kind[] {
  const idempotencyS = idempotencyHours * 3600
  return [
    {
      kind: 'domain_events',
      what: 'The outbox rows that told of the document (its id, base, and for the deletion its file name and who deleted it).',
      unreachable: { when: 'Never served by any route.', after_seconds: 0 },
      physically_gone: {
        when: `Delivered events are pruned a week after delivery (at most an hour late). ${SQLITE_PAGES}`,
        after_seconds: OUTBOX_KEEP_S,
      },
    },
    {
      kind: 'webhook_deliveries',
      what: "The messages sent to the workspace's webhook endpoints, with their attempts (a document's ids, a member's address on member.removed), kept to be read and sent again (docs/webhooks.md).",
      unreachable: {
        when: "Shown to the workspace's admins among an endpoint's deliveries until pruned; never with the document's content.",
        after_seconds: null,
      },
      physically_gone: {
        when: `An ended delivery 30 days old is pruned when its endpoint's next delivery is queued, and with the endpoint. ${SQLITE_PAGES}`,
        after_seconds: null,
      },
    },
    {
      kind: 'idempotency_records',
      what: "The stored answers of requests sent with an Idempotency-Key (an upload's answer names its documents).",
      unreachable: {
        when: `Replayed only to the same key for ${idempotencyHours} hours.`,
        after_seconds: idempotencyS,
      },
      physically_gone: { when: `Swept once expired. ${SQLITE_PAGES}`, after_seconds: null },
    },
    {
      kind: 'answer_feedback',
      what: 'Ratings of answers, with the question, the answer (which may quote the document) and the cited document ids.',
      unreachable: { when: 'Kept while the base exists; deleted with the base.', after_seconds: null },
      physically_gone: { when: `With the base. ${SQLITE_PAGES}`, after_seconds: null },
    },
    {
      kind: 'audit_log',
      what: "The deletion receipt: who deleted which file (name, base, rows) and when, in the workspace's hash chain.",
      unreachable: {
        when: "Kept on purpose: the receipt proves the deletion and is shown to the workspace's admins. It holds the file name, never its content.",
        after_seconds: null,
      },
      physically_gone: {
        when: "Never by a document's or base's deletion: the log is append-only. Only erasing the workspace removes its whole chain.",
        after_seconds: null,
      },
    },
    {
      kind: 'backups',
      what: 'Copies of the data directory or the bucket the operator makes (the server makes none).',
      unreachable: {
        when: "The operator's: this server never reads them back by itself.",
        after_seconds: null,
      },
      physically_gone: { when: "When the operator's backup retention expires them.", after_seconds: null },
    },
  ]
}
