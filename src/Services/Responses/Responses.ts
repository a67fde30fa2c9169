import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import type { JsonObject } from "../../Domain/ChatTool.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import * as Ids from "../../Domain/Ids.ts"
import { nativeResponseOf, type ResponseObject, responseOf } from "../../Dialects/Responses/ResponseObject.ts"
import { chatRequestOf } from "../../Dialects/Responses/ResponsesDecoder.ts"
import type { ResponsesCall, ResponsesCreate } from "../../Dialects/Responses/ResponsesRequest.ts"
import { streamErrorCode } from "../../Dialects/Responses/ResponsesSse.ts"
import { type ResponseEvent, ResponsesStreamEncoder } from "../../Dialects/Responses/ResponsesStreamEncoder.ts"
import { ChatCompletions, type RunOptions } from "../Chat/ChatCompletions.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { Files } from "../Files/Files.ts"
import type { ChatEncoding } from "../Chat/ChatEncoding.ts"
import type { AttemptLog } from "../Routing/RoutedAttempts.ts"
import type { Answered, Streamed } from "../Usage/RequestOutcome.ts"
import { resolveInputFiles } from "./ResponsesFiles.ts"
import { ResponseStore } from "./ResponseStore.ts"

export type ResponsesResult =
  | { readonly _tag: "Json"; readonly body: ResponseObject; readonly outcome: Answered }
  | {
    readonly _tag: "Stream"
    readonly outcome: Streamed
    /**
     * Typed events. Fails only before the first one (then nothing was sent yet); a failure after
     * it ends the stream with `error` and `response.failed` instead.
     */
    readonly events: Stream.Stream<ResponseEvent, GatewayError>
    /** The events that end a stream cut off by the gateway itself (shutdown). */
    readonly failed: (error: GatewayError) => ReadonlyArray<ResponseEvent>
  }

const attempt = <A>(f: () => A): Effect.Effect<A, GatewayError> =>
  Effect.try({ try: f, catch: (error) => (error instanceof GatewayError ? error : GatewayError.internal(String(error))) })

/**
 * `POST /v1/responses`: the chat use case with the Responses encoding. The conversation is
 * continued from the stored response `previous_response_id` names (its items and output, not its
 * instructions), `item_reference` items are replaced by the stored items they name, and a
 * response the client keeps (`store`, default true) is stored for its project. The response id
 * is made once per request and kept across attempts.
 */
export class Responses extends Context.Service<
  Responses,
  {
    /** The decoded request as the neutral call, its stored context resolved. */
    readonly prepare: (create: ResponsesCreate, projectId: string) => Effect.Effect<ResponsesCall, GatewayError>
    readonly create: (call: ResponsesCall, log: AttemptLog, projectId: string, options?: RunOptions) => Effect.Effect<ResponsesResult, GatewayError>
  }
>()("gateway/Responses") {
  static readonly layer = Layer.effect(
    Responses,
    Effect.gen(function* () {
      const chat = yield* ChatCompletions
      const store = yield* ResponseStore
      const files = yield* Files
      const fileSettings = (yield* GatewayConfigFile).config.files
      const fileLimits = { maxBytes: fileSettings.max_inline_mb * 1024 * 1024, maxParts: fileSettings.max_parts }

      const prepare = (create: ResponsesCreate, projectId: string) =>
        Effect.gen(function* () {
          const previousId = create.settings.previous_response_id ?? undefined
          const previous = previousId === undefined ? undefined : yield* store.get(projectId, previousId, "previous_response_id")
          const references = create.input.flatMap((item) => (item["type"] === "item_reference" ? [item["id"] as string] : []))
          const found = references.length === 0 ? undefined : yield* store.items(projectId, references)
          const input: Array<JsonObject> = []
          for (const [i, item] of create.input.entries()) {
            if (item["type"] !== "item_reference") {
              input.push(item)
              continue
            }
            const stored = found?.get(item["id"] as string)
            if (stored === undefined) return yield* GatewayError.notFound(`Item with id '${String(item["id"])}' not found.`, `input[${i}].id`)
            input.push(stored)
          }
          const before = previous === undefined ? [] : [...previous.items, ...previous.response.output]
          const conversation = [...before, ...input]
          const inline = yield* resolveInputFiles(files, fileLimits, projectId, conversation, before.length)
          const call = yield* attempt(() => chatRequestOf(create, inline))
          // The stored conversation names files by id, not by their bytes.
          return inline === conversation ? call : { ...call, items: conversation }
        })

      const keep = (projectId: string, call: ResponsesCall, response: ResponseObject | undefined) =>
        !call.create.store || response === undefined
          ? Effect.void
          : store.save(projectId, { response, items: call.items }).pipe(
            Effect.catch((error) => Effect.logWarning(`response ${response.id} was not stored`, error))
          )

      const create = (call: ResponsesCall, log: AttemptLog, projectId: string, options: RunOptions = {}) =>
        Effect.clockWith((clock) => {
          const id = Ids.storedResponseId()
          const now = () => clock.currentTimeMillisUnsafe()
          let latest: ResponsesStreamEncoder | undefined
          const encoding: ChatEncoding<ResponseObject, ResponseEvent> = {
            json: (completion, served) => {
              const meta = { id, createdAt: served.created, model: served.model }
              return completion.native === undefined
                ? responseOf(call.create, meta, completion, Math.floor(now() / 1000))
                : nativeResponseOf(call.create, meta, completion.native, Math.floor(now() / 1000))
            },
            stream: (model, created) => (latest = new ResponsesStreamEncoder(call.create, { id, createdAt: created, model }, now))
          }
          const failed = (error: GatewayError) => latest?.fail(streamErrorCode(error.reason), error.reason.message) ?? []
          return Effect.flatMap(chat.run(call.chat, log, projectId, encoding, options), (result): Effect.Effect<ResponsesResult, GatewayError> => {
            if (result._tag === "Json") return Effect.as(keep(projectId, call, result.body), result)
            const events = result.chunks.pipe(
              Stream.catch((error) => (latest?.hasStarted === true ? Stream.fromIterable(failed(error)) : Stream.fail(error))),
              Stream.ensuring(Effect.suspend(() => keep(projectId, call, latest?.last)))
            )
            return Effect.succeed({ _tag: "Stream", events, failed, outcome: result.outcome })
          })
        }).pipe(Effect.withSpan("Responses.create"))

      return Responses.of({ prepare, create })
    })
  )
}
