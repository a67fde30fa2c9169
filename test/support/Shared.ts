import { existsSync } from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The shared test corpus and references live beside the repository (`../shared`). A checkout
 * elsewhere can point at them with GATEWAY_SHARED_DIR; /work/shared is where the project's
 * machines keep them.
 */
export const sharedDir: string = (() => {
  const candidates = [
    process.env["GATEWAY_SHARED_DIR"],
    NodePath.resolve(fileURLToPath(new URL("../../../shared", import.meta.url))),
    "/work/shared"
  ].filter((dir): dir is string => dir !== undefined && dir !== "")
  const found = candidates.find((dir) => existsSync(NodePath.join(dir, "fixtures", "manifest.json")))
  if (found === undefined) throw new Error(`the shared test corpus is missing: looked in ${candidates.join(", ")} (set GATEWAY_SHARED_DIR)`)
  return found
})()

export const fixturesDir = NodePath.join(sharedDir, "fixtures")
export const referenceDir = NodePath.join(sharedDir, "reference")
