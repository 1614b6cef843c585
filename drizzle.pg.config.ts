import { defineConfig } from 'drizzle-kit'

// The PostgreSQL migrations: drizzle-kit reads the twins of every declared table (migrations-pg/schema.ts,
// written by scripts/pg-schema.ts from the `*.tables.ts` files; docs/data-layer.md).
export default defineConfig({
  dialect: 'postgresql',
  schema: './migrations-pg/schema.ts',
  out: process.env.DRIZZLE_OUT ?? './migrations-pg',
})
