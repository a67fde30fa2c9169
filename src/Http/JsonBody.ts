import type { IncomingMessage } from "node:http"
import * as ByteSize from "effect/ByteSize"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import { GatewayError } from "../Domain/GatewayError.ts"
import { schemaErrorToGateway } from "../Domain/SchemaErrors.ts"
import { incomingMessageOf, requestHeader } from "./NodeMessage.ts"

/** Largest request body accepted, in bytes (`server.body_limit_mb`). */
export const BodyLimit = Context.Reference<number>("gateway/BodyLimit", { defaultValue: () => 200 * 1024 * 1024 })

const tooLarge = (limit: number) =>
  GatewayError.tooLarge(`The request body is larger than the ${Math.floor(limit / (1024 * 1024))} MB limit.`)

const isJsonContentType = (value: string | undefined): boolean => {
  if (value === undefined) return false
  const mediaType = value.split(";", 1)[0]!.trim().toLowerCase()
  return mediaType === "application/json" || (mediaType.startsWith("application/") && mediaType.endsWith("+json"))
}

const parseObject = (text: string): Effect.Effect<Record<string, unknown>, GatewayError> => {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return Effect.fail(
      GatewayError.invalid("We could not parse the JSON body of your request. The body must be valid JSON.", undefined, "invalid_json")
    )
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    return Effect.fail(GatewayError.invalid("The request body must be a JSON object.", undefined, "invalid_body"))
  }
  return Effect.succeed(parsed as Record<string, unknown>)
}

const unreadable = () => GatewayError.invalid("The request body could not be read.")
const decoder = new TextDecoder()

/**
 * The body of a Node request as text, read straight from the message: one callback instead of
 * the platform's cached stream reader and the `MaxBodySize` context entry it needs, which the
 * model endpoints would pay on every request. Bytes past `limit` end the read with a 413; the
 * server's teardown deals with the rest of the body. Decoded like the platform does (a BOM
 * dropped, bad UTF-8 replaced).
 */
const readIncoming = (source: IncomingMessage, limit: number): Effect.Effect<string, GatewayError> =>
  Effect.callback<string, GatewayError>((resume) => {
    if (source.readableEnded || source.destroyed) return resume(Effect.fail(unreadable()))
    const chunks: Array<Buffer> = []
    let size = 0
    const stop = () => {
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onFailure)
      source.off("close", onFailure)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= limit) return void chunks.push(chunk)
      stop()
      resume(Effect.fail(tooLarge(limit)))
    }
    const onEnd = () => {
      stop()
      resume(Effect.succeed(decoder.decode(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size))))
    }
    // `close` before `end`: the client went away mid-body.
    const onFailure = () => {
      stop()
      resume(Effect.fail(unreadable()))
    }
    source.on("data", onData)
    source.on("end", onEnd)
    source.on("error", onFailure)
    source.on("close", onFailure)
    return Effect.sync(stop)
  })

// The platform's reader, for what `readIncoming` leaves to it: `Expect: 100-continue` (the
// platform answers the expectation when the body is read) and non-Node requests (tests).
const readThroughPlatform = (request: HttpServerRequest.HttpServerRequest, limit: number) =>
  request.text.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(limit)),
    Effect.catch((error) =>
      error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"
        ? Effect.fail(tooLarge(limit))
        : Effect.fail(unreadable())
    )
  )

/**
 * Reads a JSON object body. A declared Content-Length over the limit is refused before any
 * byte is read; a chunked body is cut off as soon as it passes the limit.
 */
export const readJsonObject: Effect.Effect<Record<string, unknown>, GatewayError, HttpServerRequest.HttpServerRequest> =
  Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
    Effect.flatMap(Effect.service(BodyLimit), (limit) => {
      if (!isJsonContentType(requestHeader(request, "content-type"))) {
        return Effect.fail(
          GatewayError.unsupportedMedia("This endpoint takes a JSON body; set the header Content-Type: application/json.")
        )
      }
      const declared = Number(requestHeader(request, "content-length") ?? "")
      if (Number.isFinite(declared) && declared > limit) return Effect.fail(tooLarge(limit))
      const message = incomingMessageOf(request)
      const text = message !== undefined && message.headers.expect === undefined
        ? readIncoming(message, limit)
        : readThroughPlatform(request, limit)
      return Effect.flatMap(text, parseObject)
    })
  )

/** Decodes an already-parsed body; the decoder is built once per schema, not per request. */
export const bodyDecoder = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (input: unknown): Effect.Effect<S["Type"], GatewayError, S["DecodingServices"]> =>
    Effect.mapError(decode(input), schemaErrorToGateway)
}
