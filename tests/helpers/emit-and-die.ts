// A process that commits a domain event and is then killed before its delivery completes, for the
// outbox crash test. Mode `no-dispatch`: it never starts a dispatcher. Mode `block`: its dispatcher
// delivers to subscriber `a` (which records the event) and then hangs in subscriber `b`, holding the
// lease. Either way it prints `ready <event id>` and waits to be killed with SIGKILL.
import { join } from 'node:path'
import { migrations } from '../../migrations/index'
import { systemClock } from '../../src/platform/clock/clock'
import { cryptoRandom } from '../../src/platform/crypto/random'
import { openDatabase } from '../../src/platform/db/db'
import { migrate } from '../../src/platform/db/migrate'
import { sqliteStore } from '../../src/platform/db/store'
import { Dispatcher } from '../../src/platform/events/dispatcher'
import { Outbox } from '../../src/platform/events/outbox'
import { OwnerLocks } from '../../src/platform/jobs/owner-locks'
import { memoryLogger } from '../../src/platform/log/log'

const [dataDir, mode] = process.argv.slice(2) as [string, 'no-dispatch' | 'block']
const db = openDatabase(join(dataDir, 'engram.db'))
migrate(db, migrations)
const outbox = new Outbox(db, systemClock, cryptoRandom)
const id = await sqliteStore(db).unit(() =>
  outbox.publish({
    type: 'key.revoked',
    workspaceId: 'ws_crash',
    payload: { keyId: 'key_1', name: 'k', prefix: 'ek_x', actor: { type: 'system', id: null } },
  }),
)

if (mode === 'block') {
  const dispatcher = new Dispatcher({
    outbox,
    clock: systemClock,
    log: memoryLogger(),
    owner: `proc_${process.pid}_events`,
    leaseMs: 3_600_000,
    pollMs: 3_600_000,
    owners: new OwnerLocks(join(dataDir, 'run')),
  })
  const record = db.$client.query('INSERT INTO seen (event_id, subscriber) VALUES (?, ?)')
  dispatcher.subscribe({ name: 'a', types: ['key.revoked'], handle: (e) => void record.run(e.id, 'a') })
  dispatcher.subscribe({
    name: 'b',
    types: ['key.revoked'],
    handle: () => {
      console.log(`ready ${id}`)
      return new Promise<void>(() => {})
    },
  })
  dispatcher.start()
} else {
  console.log(`ready ${id}`)
}
setInterval(() => {}, 1 << 30)
