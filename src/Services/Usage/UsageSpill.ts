import { randomBytes } from "node:crypto"
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import * as NodePath from "node:path"
import * as Effect from "effect/Effect"
import { usageEndpoints, type UsageEvent } from "../../Domain/UsageEvent.ts"

/**
 * Usage events on disk: what the ledger still holds at shutdown when the database cannot take
 * it (`usage-*.jsonl`, replayed on the next start and then deleted), and events neither table
 * would take (`rejected-*.jsonl`, kept for the operator, never replayed). One JSON event per
 * line. A file is written under a temporary name and renamed, so a start-up never reads half
 * of one; replay is idempotent because `usage_events` skips request ids it already holds.
 */
export type SpillKind = "usage" | "rejected"

const spillPattern = /^usage-[A-Za-z0-9-]+\.jsonl$/

const fileName = (kind: SpillKind): string =>
  `${kind}-${new Date().toISOString().replace(/[:.]/g, "-")}-${process.pid}-${randomBytes(4).toString("hex")}.jsonl`

/** Writes `events` to a new file in `directory`; the file's path. */
export const spillEvents = (directory: string, events: ReadonlyArray<UsageEvent>, kind: SpillKind = "usage") =>
  Effect.try({
    try: () => {
      mkdirSync(directory, { recursive: true, mode: 0o700 })
      const name = fileName(kind)
      const temporary = NodePath.join(directory, `.${name}.partial`)
      writeFileSync(temporary, events.map((e) => JSON.stringify(e)).join("\n") + "\n", { mode: 0o600, flush: true })
      const path = NodePath.join(directory, name)
      renameSync(temporary, path)
      return path
    },
    catch: (cause) => new Error(`cannot write usage spill file in ${directory}: ${String(cause)}`)
  })

/** The spill files waiting in `directory`, oldest first (names start with their time). */
export const spillFiles = (directory: string): ReadonlyArray<string> => {
  try {
    return readdirSync(directory)
      .filter((name) => spillPattern.test(name))
      .sort()
      .map((name) => NodePath.join(directory, name))
  } catch {
    return []
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const isNumber = (value: unknown): value is number => typeof value === "number"
const isNameOrNull = (value: unknown) => value === null || typeof value === "string"

/** A line of a spill file as an event, if it has an event's shape (the ledger normalises it again). */
export const decodeSpilledEvent = (line: string): UsageEvent | undefined => {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return undefined
  }
  if (!isRecord(value)) return undefined
  const ok =
    isNumber(value["occurredAt"]) && typeof value["requestId"] === "string" && isNumber(value["projectSeq"]) &&
    isNumber(value["keySeq"]) && typeof value["endpoint"] === "string" && value["endpoint"] in usageEndpoints &&
    isNameOrNull(value["requestedModel"]) && isNameOrNull(value["usedModel"]) && isNameOrNull(value["provider"]) &&
    isNumber(value["status"]) && typeof value["cancelled"] === "boolean" && typeof value["streamed"] === "boolean" &&
    isNumber(value["promptTokens"]) && isNumber(value["completionTokens"]) && isNumber(value["cachedTokens"]) &&
    isNumber(value["cacheWriteTokens"]) && isNumber(value["units"]) && isNumber(value["latencyMs"]) &&
    (value["ttftMs"] === null || isNumber(value["ttftMs"])) && Array.isArray(value["attempts"]) &&
    value["attempts"].every((a) => isRecord(a) && typeof a["provider"] === "string" && typeof a["model"] === "string") &&
    isNumber(value["costNanoUsd"])
  return ok ? (value as unknown as UsageEvent) : undefined
}

/** The events of one spill file, and how many of its lines were not events. */
export const readSpillFile = (path: string) =>
  Effect.try({
    try: () => {
      const events: Array<UsageEvent> = []
      let unreadable = 0
      for (const line of readFileSync(path, "utf8").split("\n")) {
        if (line.trim() === "") continue
        const event = decodeSpilledEvent(line)
        if (event === undefined) unreadable++
        else events.push(event)
      }
      return { events, unreadable }
    },
    catch: (cause) => new Error(`cannot read usage spill file ${path}: ${String(cause)}`)
  })

/** A replayed file is removed; one with unreadable lines is kept beside, renamed, for the operator. */
export const settleSpillFile = (path: string, unreadable: number) =>
  Effect.sync(() => {
    try {
      if (unreadable === 0) rmSync(path, { force: true })
      else renameSync(path, path.replace(/\.jsonl$/, ".unreadable"))
    } catch {
      // Another instance sharing the directory settled it first.
    }
  })
