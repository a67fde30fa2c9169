import { existsSync } from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"

/** The shared test corpus and references live beside the repository (`../shared`). */
export const sharedDir: string = (() => {
  const fromEnv = process.env["GATEWAY_SHARED_DIR"]
  if (fromEnv !== undefined && fromEnv !== "") return fromEnv
  const beside = NodePath.resolve(fileURLToPath(new URL("../../../shared", import.meta.url)))
  if (!existsSync(beside)) throw new Error(`the shared test corpus is missing: expected it at ${beside} (or set GATEWAY_SHARED_DIR)`)
  return beside
})()

export const fixturesDir = NodePath.join(sharedDir, "fixtures")
export const referenceDir = NodePath.join(sharedDir, "reference")
