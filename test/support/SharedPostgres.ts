import { makeTestStorage, type TestStorage } from "./TestDatabase.ts"

const localPostgres = "postgres://postgres@127.0.0.1:5432/postgres"

/**
 * A fresh database on a Postgres server whatever the run's storage: tests of several instances on
 * one database, or of the database's connections being killed, need a server (the embedded storage
 * serves one process, through one session that cannot be terminated apart).
 */
export const sharedPostgres = async (): Promise<TestStorage> => {
  const before = process.env["DATABASE_URL"]
  process.env["DATABASE_URL"] = before === undefined || before === "" ? localPostgres : before
  try {
    return await makeTestStorage()
  } finally {
    if (before === undefined) delete process.env["DATABASE_URL"]
    else process.env["DATABASE_URL"] = before
  }
}
