import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import * as Schema from "effect/Schema"
import { describe, expect, it } from "@effect/vitest"
import { GatewayConfig } from "../src/Domain/GatewayConfig.ts"

const readme = readFileSync(fileURLToPath(new URL("../README.md", import.meta.url)), "utf8")

/** Every setting of an empty gateway.yaml, as dotted keys with their defaults. */
const defaults = (value: unknown, prefix = ""): Array<readonly [string, unknown]> =>
  Object.entries(value as Record<string, unknown>).flatMap(([key, item]) =>
    item !== null && typeof item === "object" && !Array.isArray(item) ? defaults(item, `${prefix}${key}.`) : [[`${prefix}${key}`, item] as const]
  )

/** What caps what one request may cost: sizes, counts, times. */
const isCap = (key: string) => /(^|\.)(max_[a-z_]+|[a-z_]+_mb|timeout_ms|deadline_ms|body_read_timeout_seconds|failed_admin_attempts_per_minute|workers)$/.test(key)

/** Caps that are not a request's: how the gateway itself batches, buffers and backs off. */
const notPerRequest = new Set(["usage.max_batch", "usage.max_buffered", "routing.max_backoff_ms"])

/** The README's limit tables: the routes' body caps and the limits on untrusted content. */
const section = readme.slice(readme.indexOf("### Request limits"), readme.indexOf("### Environment"))
const rows = section.split("\n").filter((line) => line.startsWith("| `") || /^\| [^-|][^|]*\| `/.test(line))

describe("the README's limits tables", () => {
  it("list every cap of gateway.yaml with its key and its default", () => {
    const caps = defaults(Schema.decodeUnknownSync(GatewayConfig)({})).filter(([key]) => isCap(key) && !notPerRequest.has(key))
    expect(caps.length).toBeGreaterThan(30)
    // A row names the key and shows its default in another cell; keys sharing a row ("a / b")
    // show their defaults in the same order ("4 / 120,000").
    const shows = (row: string, key: string, value: unknown) => {
      const keys = [...row.matchAll(/`([a-z_]+(?:\.[a-z_]+)+)`/g)].map((m) => m[1]!)
      const at = keys.indexOf(key)
      return row.split("|").some((cell) => {
        if (cell.includes("`")) return false
        const shown = cell.replaceAll(",", "").split(" / ")[at]?.trim().match(/^\d+/)?.[0]
        return shown === String(value)
      })
    }
    const missing = caps.flatMap(([key, value]) => {
      const named = rows.filter((line) => line.includes(`\`${key}\``))
      if (named.length === 0) return [`${key}: no row names it`]
      return named.some((row) => shows(row, key, value)) ? [] : [`${key}: no row shows its default ${String(value)}`]
    })
    expect(missing).toEqual([])
  })
})
