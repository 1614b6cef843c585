// Applies migrations-pg to the PostgreSQL database whose URL is the first argument, with the
// product's own migrator: how tests/helpers/postgres.ts migrates its template database in a process
// of its own, so that a test app can be built synchronously on a copy of it.
import { SQL } from 'bun'
import { migrations } from '../../migrations-pg/index'
import { migratePg } from '../../src/platform/db/migrate-pg'

const url = process.argv[2]
if (!url) throw new Error('usage: bun run tests/helpers/pg-migrate.ts <postgres url>')
const client = new SQL({ url, max: 1 })
await migratePg(client, migrations)
await client.close()
