import type { Database, Statement } from 'bun:sqlite'

/**
 * The connection, whose statements (from `query` and `prepare`) call `ran` with their SQL each time
 * they are run (get, all, values, run, iterate): a test counts or inspects what a repo executes.
 */
export function watchedClient(client: Database, ran: (sql: string) => void): Database {
  const watch = (stmt: Statement, sql: string) =>
    new Proxy(stmt, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver)
        if (typeof v !== 'function' || !['get', 'all', 'values', 'run', 'iterate'].includes(String(prop)))
          return v
        return (...args: unknown[]) => {
          ran(sql)
          return (v as (...a: unknown[]) => unknown).apply(target, args)
        }
      },
    })
  return new Proxy(client, {
    get(target, prop) {
      // Getters (inTransaction, filename) run on the real connection: they read its private fields.
      const v = Reflect.get(target, prop, target)
      if (prop !== 'query' && prop !== 'prepare') return typeof v === 'function' ? v.bind(target) : v
      return (sql: string) => watch((v as (s: string) => Statement).call(target, sql), sql)
    },
  })
}
