import type { IncomingMessage } from "node:http"
import * as ByteSize from "effect/ByteSize"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import { GatewayError, RequestTimeout } from "../Domain/GatewayError.ts"
import { schemaErrorToGateway } from "../Domain/SchemaErrors.ts"
import { type BodyCap, type BodyLimitTable, BodyLimits, bodyTooLarge, JsonLimits, type JsonShapeLimits, jsonShapeRefused } from "./BodyLimits.ts"
import { errorBody } from "./ErrorResponse.ts"
import { requestIdOf } from "./Handler.ts"
import { spendEscapes } from "./JsonShape.ts"
import { makeJsonStructureMeter } from "./JsonStructure.ts"
import { watchBodyStall } from "./BodyStallWatch.ts"
import { incomingMessageOf, requestHeader, serverResponseOf } from "./NodeMessage.ts"

/** How long a request body may send nothing, in ms (`resilience.body_read_timeout_seconds`). */
export const BodyReadTimeout = Context.Reference<number>("gateway/BodyReadTimeout", { defaultValue: () => 30_000 })

export const bodyTimedOut = (stallMs: number): GatewayError =>
  new GatewayError({
    reason: new RequestTimeout({ message: `The request body sent nothing for ${Math.round(stallMs / 1000)} s; the connection is closed.` })
  })

/**
 * Fails with the 408 when the request's body stalls, for readers that cannot be stopped from
 * inside (the platform's, raced against this on paths that are not hot). Stopping such a reader
 * destroys the socket, so the 408 is written to it first, straight away; the failure that follows
 * keeps the request's status (and its usage row) at 408. Disarms itself once the body has all
 * arrived, then never completes.
 */
export const bodyStall = (request: HttpServerRequest.HttpServerRequest, stallMs: number): Effect.Effect<never, GatewayError> => {
  const message = incomingMessageOf(request)
  if (message === undefined) return Effect.never
  return Effect.callback<never, GatewayError>((resume) => {
    const unwatch = watchBodyStall(message, stallMs, () => {
      const failure = bodyTimedOut(stallMs)
      const response = serverResponseOf(request)
      if (response !== undefined && !response.headersSent) {
        const { status, body } = errorBody(failure, { requestId: requestIdOf(request) })
        const text = JSON.stringify(body)
        response.writeHead(status, {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(text),
          "x-request-id": requestIdOf(request),
          connection: "close"
        })
        response.end(text)
      }
      resume(Effect.fail(failure))
    })
    message.once("end", unwatch)
    return Effect.sync(() => {
      message.off("end", unwatch)
      unwatch()
    })
  })
}

const isJsonContentType = (value: string | undefined): boolean => {
  if (value === undefined) return false
  // What clients send almost always: no need to split and fold it.
  if (value === "application/json") return true
  const mediaType = value.split(";", 1)[0]!.trim().toLowerCase()
  return mediaType === "application/json" || (mediaType.startsWith("application/") && mediaType.endsWith("+json"))
}

// JSON can carry a NUL or a lone surrogate only as an escape (\u0000, \uD800): a plain search
// of the text finds every candidate, and only then is the parsed body walked.
const mayHoldBadText = (text: string): boolean =>
  text.includes("\\u0000") || text.includes("\\ud") || text.includes("\\uD")

const tooManyEscapes = (limits: JsonShapeLimits) =>
  jsonShapeRefused(`has more than ${limits.maxEscapes.toLocaleString("en-US")} backslash escapes`, limits.maxEscapes, "max_escapes", undefined, "json_too_many_escapes")

/**
 * The body's text as a JSON object. Its shape limits are not walked again here: the structure
 * meter counted them on the bytes as they arrived (`readIncoming`, `readThroughPlatform`), and it
 * refuses whatever the walk of the parsed body would (`jsonShapeRefusal`, the meter's reference in
 * test/Http/JsonStructure.test.ts), so a second walk would cost every request and refuse nothing.
 */
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
  const bad = mayHoldBadText(text) ? badTextPath(parsed) : undefined
  if (bad !== undefined) {
    return Effect.fail(
      GatewayError.invalid(
        `Invalid value for '${bad}': text may not contain the NUL character (\\u0000) or an unpaired surrogate (\\uD800-\\uDFFF).`,
        bad
      )
    )
  }
  return Effect.succeed(parsed as Record<string, unknown>)
}

const isWellFormed = (text: string): boolean => (text as unknown as { isWellFormed(): boolean }).isWellFormed()
const isBadText = (text: string): boolean => text.includes("\u0000") || !isWellFormed(text)

/**
 * The path (`messages[0].content`) of the first string or key holding U+0000 or an unpaired
 * surrogate: text no database column, log line or provider can take as it is. Walked without
 * recursion so that deep nesting cannot overflow the stack.
 */
export const badTextPath = (root: object): string | undefined => {
  const stack: Array<{ readonly value: unknown; readonly path: string }> = [{ value: root, path: "" }]
  while (stack.length > 0) {
    const { value, path } = stack.pop()!
    if (typeof value === "string") {
      if (isBadText(value)) return path === "" ? "body" : path
      continue
    }
    if (value === null || typeof value !== "object") continue
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push({ value: value[i], path: `${path}[${i}]` })
      continue
    }
    for (const [key, item] of Object.entries(value).reverse()) {
      const at = path === "" ? key : `${path}.${key}`
      if (isBadText(key)) return at
      stack.push({ value: item, path: at })
    }
  }
  return undefined
}

const unreadable = () => GatewayError.invalid("The request body could not be read.")
const decoder = new TextDecoder()

/**
 * The body of a Node request as text, read straight from the message: one callback instead of
 * the platform's cached stream reader and the `MaxBodySize` context entry it needs, which the
 * model endpoints would pay on every request. Bytes past the cap end the read with a 413, and
 * backslashes past `limits.maxEscapes` with a 400, as soon as they arrive; the server's teardown
 * deals with the rest of the body. Decoded like the platform does (a BOM dropped, bad UTF-8
 * replaced). The structure limits (depth, keys, items, objects and values) are counted as the
 * bytes arrive too, so `JSON.parse` only ever gets a body it can build quickly.
 */
const readIncoming = (source: IncomingMessage, cap: BodyCap, limits: JsonShapeLimits, stallMs: number): Effect.Effect<string, GatewayError> =>
  Effect.callback<string, GatewayError>((resume) => {
    if (source.readableEnded || source.destroyed) return resume(Effect.fail(unreadable()))
    const chunks: Array<Buffer> = []
    const limit = cap.bytes
    let size = 0
    let escapes = limits.maxEscapes
    const structure = makeJsonStructureMeter(limits)
    const stop = () => {
      unwatch()
      source.off("data", onData)
      source.off("end", onEnd)
      source.off("error", onFailure)
      source.off("close", onFailure)
    }
    const unwatch = watchBodyStall(source, stallMs, () => {
      stop()
      resume(Effect.fail(bodyTimedOut(stallMs)))
    })
    const onData = (chunk: Buffer) => {
      size += chunk.length
      let refused: GatewayError | undefined
      if (size > limit) refused = bodyTooLarge(cap)
      else if ((escapes = spendEscapes(chunk, escapes)) < 0) refused = tooManyEscapes(limits)
      else refused = structure(chunk)
      if (refused === undefined) return void chunks.push(chunk)
      stop()
      resume(Effect.fail(refused))
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
const readThroughPlatform = (request: HttpServerRequest.HttpServerRequest, cap: BodyCap, limits: JsonShapeLimits, stallMs: number) => {
  const text = request.text.pipe(
    Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(cap.bytes)),
    Effect.catch((error) =>
      error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"
        ? Effect.fail(bodyTooLarge(cap))
        : Effect.fail(unreadable())
    ),
    Effect.flatMap((body) => {
      const bytes = Buffer.from(body)
      if (spendEscapes(bytes, limits.maxEscapes) < 0) return Effect.fail(tooManyEscapes(limits))
      const refused = makeJsonStructureMeter(limits)(bytes)
      return refused === undefined ? Effect.succeed(body) : Effect.fail(refused)
    })
  )
  const message = incomingMessageOf(request)
  if (message === undefined) return text
  // This path is rare (Expect: 100-continue): a race costs a fiber here, never on the usual path.
  return Effect.raceFirst(text, bodyStall(request, stallMs))
}

/**
 * Reads a JSON object body within the route's cap (`capOf` picks it from `server.body_limits`). A declared Content-Length over the cap is
 * refused before any byte is read; a body that passes it while it streams in is cut off there.
 * The parsed body is checked against `server.json_limits` before anything else sees it.
 */
export const readJsonObject = (capOf: (table: BodyLimitTable) => BodyCap): Effect.Effect<Record<string, unknown>, GatewayError, HttpServerRequest.HttpServerRequest> =>
  Effect.flatMap(Effect.context<HttpServerRequest.HttpServerRequest>(), (context) => {
    const request = Context.get(context, HttpServerRequest.HttpServerRequest)
    const limits = Context.get(context, JsonLimits)
    const cap = capOf(Context.get(context, BodyLimits))
    if (!isJsonContentType(requestHeader(request, "content-type"))) {
      return Effect.fail(
        GatewayError.unsupportedMedia("This endpoint takes a JSON body; set the header Content-Type: application/json.")
      )
    }
    const declared = Number(requestHeader(request, "content-length") ?? "")
    if (Number.isFinite(declared) && declared > cap.bytes) return Effect.fail(bodyTooLarge(cap))
    const stallMs = Context.get(context, BodyReadTimeout)
    const message = incomingMessageOf(request)
    const text = message !== undefined && message.headers.expect === undefined
      ? readIncoming(message, cap, limits, stallMs)
      : readThroughPlatform(request, cap, limits, stallMs)
    return Effect.flatMap(text, parseObject)
  })

/** Decodes an already-parsed body; the decoder is built once per schema, not per request. */
export const bodyDecoder = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (input: unknown): Effect.Effect<S["Type"], GatewayError, S["DecodingServices"]> =>
    Effect.mapError(decode(input), schemaErrorToGateway)
}
