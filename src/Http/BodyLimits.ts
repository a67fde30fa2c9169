import * as Context from "effect/Context"
import type { ServerSettings } from "../Domain/GatewayConfig.ts"
import { GatewayError } from "../Domain/GatewayError.ts"
import type { UsageEndpoint } from "../Domain/UsageEvent.ts"

/** The body cap of one route: its size, and what sets it (a config key, or a fixed limit). */
export interface BodyCap {
  readonly bytes: number
  readonly route: string
  /** The gateway.yaml key, or undefined for a limit that is not configurable. */
  readonly key: string | undefined
}

/** The caps of the JSON model endpoints, by usage endpoint; `chat` serves any endpoint without its own. */
export type BodyLimitTable = Readonly<Record<"chat" | "embeddings" | "images" | "decisions" | "tools", BodyCap>>

/** How a JSON body may be shaped (`server.json_limits`). */
export interface JsonShapeLimits {
  readonly maxDepth: number
  readonly maxObjectKeys: number
  readonly maxArrayItems: number
  readonly maxEscapes: number
  /** Objects and arrays in the whole body. */
  readonly maxContainers: number
  /** Values in the whole body. */
  readonly maxValues: number
}

const mib = 1024 * 1024

export const bodyLimitTable = (server: Pick<ServerSettings, "body_limit_mb" | "body_limits">): BodyLimitTable => ({
  chat: { bytes: server.body_limit_mb * mib, route: "chat requests (/v1/chat/completions, /v1/messages, /v1/responses)", key: "server.body_limit_mb" },
  embeddings: { bytes: server.body_limits.embeddings_mb * mib, route: "/v1/embeddings", key: "server.body_limits.embeddings_mb" },
  images: { bytes: server.body_limits.images_mb * mib, route: "/v1/images and /v1/images/generations", key: "server.body_limits.images_mb" },
  decisions: { bytes: server.body_limits.decisions_mb * mib, route: "/v1/decisions", key: "server.body_limits.decisions_mb" },
  tools: { bytes: server.body_limits.tools_mb * mib, route: "/v1/tools/{tool}", key: "server.body_limits.tools_mb" }
})

export const jsonShapeLimits = (server: Pick<ServerSettings, "json_limits">): JsonShapeLimits => ({
  maxDepth: server.json_limits.max_depth,
  maxObjectKeys: server.json_limits.max_object_keys,
  maxArrayItems: server.json_limits.max_array_items,
  maxEscapes: server.json_limits.max_escapes,
  maxContainers: server.json_limits.max_containers,
  maxValues: server.json_limits.max_values
})

/** Per-route body caps (`server.body_limit_mb`, `server.body_limits.*`); the defaults until configured. */
export const BodyLimits = Context.Reference<BodyLimitTable>("gateway/BodyLimits", {
  defaultValue: () => bodyLimitTable({ body_limit_mb: 200, body_limits: { embeddings_mb: 16, images_mb: 64, decisions_mb: 4, tools_mb: 1 } })
})

export const JsonLimits = Context.Reference<JsonShapeLimits>("gateway/JsonLimits", {
  defaultValue: () => jsonShapeLimits({ json_limits: { max_depth: 64, max_object_keys: 10_000, max_array_items: 100_000, max_escapes: 1_000_000, max_containers: 50_000, max_values: 1_000_000 } })
})

export const capOf = (table: BodyLimitTable, endpoint: UsageEndpoint): BodyCap =>
  endpoint === "embeddings" || endpoint === "images" || endpoint === "decisions" || endpoint === "tools" ? table[endpoint] : table.chat

/** The console's sign-in body is one token: a few KB is plenty, and nothing larger is read. */
export const signInCap: BodyCap = { bytes: 4 * 1024, route: "POST /console/session", key: undefined }

/** `200 MiB`, `64 KiB`, `512 bytes`. */
export const formatBytes = (bytes: number): string =>
  bytes >= mib && bytes % mib === 0
    ? `${bytes / mib} MiB`
    : bytes >= 1024 && bytes % 1024 === 0
    ? `${bytes / 1024} KiB`
    : `${bytes} bytes`

const setBy = (key: string | undefined) => (key === undefined ? "a fixed limit" : `set by ${key}`)

/** The 413 for a body over its route's cap: the limit, the route and what sets it. */
export const bodyTooLarge = (cap: BodyCap): GatewayError =>
  GatewayError.tooLarge(`The request body is larger than the ${formatBytes(cap.bytes)} limit of ${cap.route} (${setBy(cap.key)}).`)

/** The 400 for a JSON body over one of its shape limits. */
export const jsonShapeRefused = (what: string, limit: number, key: string, path: string | undefined, code: string): GatewayError =>
  GatewayError.invalid(
    `The JSON body ${what} (${path === undefined ? "" : `at '${path}'; `}the limit is ${limit.toLocaleString("en-US")}, set by server.json_limits.${key}).`,
    path,
    code
  )
