import { createHash } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { extname, join, relative, sep } from "node:path"
import { fileURLToPath } from "node:url"

/** One file of the console's web page, read once at start-up. */
export interface ConsoleAsset {
  readonly body: Uint8Array
  readonly contentType: string
  readonly etag: string
}

/** The page's files ship with the package, in `console/` at its root: no build step, no CDN. */
export const consoleDirectory = fileURLToPath(new URL("../../../console/", import.meta.url))

const types: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".ico": "image/x-icon",
  ".png": "image/png"
}

/**
 * Every servable file under `directory`, by its path below `/console/`. Only these names are
 * ever served, so no request path reaches the file system.
 */
export const loadConsoleAssets = (directory: string = consoleDirectory): ReadonlyMap<string, ConsoleAsset> => {
  const assets = new Map<string, ConsoleAsset>()
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    const contentType = types[extname(entry.name)]
    if (!entry.isFile() || contentType === undefined) continue
    const path = join(entry.parentPath, entry.name)
    const body = readFileSync(path)
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`
    assets.set(relative(directory, path).split(sep).join("/"), { body, contentType, etag })
  }
  return assets
}
