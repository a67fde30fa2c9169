import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import { PGlite } from "@electric-sql/pglite"

/**
 * Creating an embedded database runs initdb, which costs seconds; every test file that needs
 * embedded storage copies one initialised data directory instead.
 */
const pgliteVersion = (): string => {
  const pkg = fileURLToPath(new URL("../../node_modules/@electric-sql/pglite/package.json", import.meta.url))
  return (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version
}

export const templateDir = (): string =>
  fileURLToPath(new URL(`../../node_modules/.cache/gateway-tests/pglite-${pgliteVersion()}`, import.meta.url))

/** Builds the template once (atomically, so parallel workers cannot see half of it). */
export const ensureTemplate = async (): Promise<string> => {
  const target = templateDir()
  if (existsSync(target)) return target
  const staging = `${target}.${process.pid}.${Date.now()}`
  mkdirSync(NodePath.dirname(target), { recursive: true })
  const db = await PGlite.create({ dataDir: staging })
  await db.query("SELECT 1")
  await db.close()
  try {
    renameSync(staging, target)
  } catch {
    // Another worker won the race; its template is as good as ours.
    rmSync(staging, { recursive: true, force: true })
  }
  return target
}

/** A fresh embedded data directory (DATA_DIR/pg) seeded from the template. */
export const seedDataDir = async (dataDir: string): Promise<void> => {
  cpSync(await ensureTemplate(), NodePath.join(dataDir, "pg"), { recursive: true })
}
