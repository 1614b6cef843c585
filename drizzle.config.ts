import { defineConfig } from 'drizzle-kit'

export default defineConfig({
  dialect: 'sqlite',
  schema: ['./src/platform/**/*.tables.ts', './src/features/**/*.tables.ts'],
  out: process.env.DRIZZLE_OUT ?? './migrations',
})
