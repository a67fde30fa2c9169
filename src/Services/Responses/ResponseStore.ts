import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as SqlClient from "effect/sql/SqlClient"
import type { JsonObject } from "../../Domain/ChatTool.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import type { ResponseObject } from "../../Dialects/Responses/ResponseObject.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { storageGuard } from "../Storage/StorageGuard.ts"

/** A stored response with the conversation that led to it. */
export interface StoredResponse {
  readonly response: ResponseObject
  /** The items before this response (instructions excluded); with `response.output`, the whole conversation. */
  readonly items: ReadonlyArray<JsonObject>
}

export const responseNotFound = (id: string, param?: string): GatewayError =>
  GatewayError.notFound(`Response with id '${id}' not found.`, param)

/**
 * Responses API responses kept per project (`store`, default true), for retrieval, deletion,
 * `previous_response_id` and `item_reference`, until `responses.retention_days` after they were
 * made. Another project's id is not found, exactly like an id that never existed.
 */
export class ResponseStore extends Context.Service<
  ResponseStore,
  {
    readonly save: (projectId: string, stored: StoredResponse) => Effect.Effect<void, GatewayError>
    readonly get: (projectId: string, id: string, param?: string) => Effect.Effect<StoredResponse, GatewayError>
    /** Output items of the project's stored responses, by item id; ids not found are absent. */
    readonly items: (projectId: string, ids: ReadonlyArray<string>) => Effect.Effect<ReadonlyMap<string, JsonObject>, GatewayError>
    readonly remove: (projectId: string, id: string) => Effect.Effect<void, GatewayError>
    readonly sweep: Effect.Effect<number>
  }
>()("gateway/ResponseStore") {
  static readonly layer = Layer.effect(
    ResponseStore,
    Effect.gen(function* () {
      const sql = yield* SqlClient.SqlClient
      const { config } = yield* GatewayConfigFile
      const settings = config.responses
      const guard = storageGuard(config.resilience)
      const now = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms))

      const save = (projectId: string, stored: StoredResponse) =>
        Effect.gen(function* () {
          const createdAt = new Date(stored.response.created_at * 1000)
          const expiresAt = new Date(createdAt.getTime() + settings.retention_days * 86_400_000)
          const id = stored.response.id
          const outputs = stored.response.output.filter((item) => typeof item["id"] === "string")
          const indexed = outputs.map((item) => ({ item_id: item["id"] as string, item: JSON.stringify(item) }))
          // One statement: the response and the index of its output items, together or not at all.
          yield* sql`WITH saved AS (
              INSERT INTO stored_responses (id, project_id, created_at, expires_at, response, items)
              VALUES (${id}, ${projectId}, ${createdAt}, ${expiresAt}, ${JSON.stringify(stored.response)}, ${JSON.stringify(stored.items)})
              RETURNING id)
            INSERT INTO stored_response_items (project_id, item_id, response_id, item)
            SELECT ${projectId}, x.item_id, saved.id, x.item FROM saved, json_to_recordset(${JSON.stringify(indexed)}::json) AS x(item_id text, item text)
            ON CONFLICT DO NOTHING`
        }).pipe(guard, Effect.withSpan("ResponseStore.save"))

      const get = (projectId: string, id: string, param?: string) =>
        Effect.gen(function* () {
          const rows = yield* sql<{ response: string; items: string }>`SELECT response, items FROM stored_responses
            WHERE id = ${id} AND project_id = ${projectId} AND expires_at > ${yield* now}`
          const row = rows[0]
          if (row === undefined) return yield* responseNotFound(id, param)
          return { response: JSON.parse(row.response) as ResponseObject, items: JSON.parse(row.items) as Array<JsonObject> }
        }).pipe(guard, Effect.withSpan("ResponseStore.get"))

      const items = (projectId: string, ids: ReadonlyArray<string>) =>
        Effect.gen(function* () {
          if (ids.length === 0) return new Map<string, JsonObject>()
          const rows = yield* sql<{ item_id: string; item: string }>`SELECT i.item_id, i.item FROM stored_response_items i
            JOIN stored_responses r ON r.id = i.response_id
            WHERE i.project_id = ${projectId} AND ${sql.in("i.item_id", ids)} AND r.expires_at > ${yield* now}`
          return new Map(rows.map((row) => [row.item_id, JSON.parse(row.item) as JsonObject]))
        }).pipe(guard, Effect.withSpan("ResponseStore.items"))

      const remove = (projectId: string, id: string) =>
        Effect.gen(function* () {
          const rows = yield* sql<{ id: string }>`DELETE FROM stored_responses WHERE id = ${id} AND project_id = ${projectId}
            AND expires_at > ${yield* now} RETURNING id`
          if (rows.length === 0) return yield* responseNotFound(id)
        }).pipe(guard, Effect.withSpan("ResponseStore.remove"))

      const sweep = Effect.gen(function* () {
        // SKIP LOCKED lets several instances sweep at once.
        const rows = yield* sql<{ id: string }>`DELETE FROM stored_responses WHERE id IN (
            SELECT id FROM stored_responses WHERE expires_at <= ${yield* now} ORDER BY expires_at LIMIT 1000 FOR UPDATE SKIP LOCKED)
          RETURNING id`
        return rows.length
      }).pipe(
        Effect.catchCause((cause) => Effect.as(Effect.logWarning("stored responses sweep failed", cause), 0)),
        Effect.withSpan("ResponseStore.sweep")
      )
      yield* Effect.forkScoped(
        Effect.repeat(Effect.andThen(Effect.sleep(`${settings.sweep_interval_seconds} seconds`), sweep), { while: () => true })
      )

      return ResponseStore.of({ save, get, items, remove, sweep })
    })
  )
}
