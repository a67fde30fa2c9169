import { ByteSize, Context, Effect, Schema } from "effect"
import { HttpIncomingMessage, HttpServerRequest } from "effect/http"
import { GatewayError } from "../Domain/GatewayError.ts"
import { schemaErrorToGateway } from "../Domain/SchemaErrors.ts"

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

/**
 * Reads a JSON object body. A declared Content-Length over the limit is refused before any
 * byte is read; a chunked body is cut off as soon as it passes the limit.
 */
export const readJsonObject: Effect.Effect<Record<string, unknown>, GatewayError, HttpServerRequest.HttpServerRequest> =
  Effect.flatMap(Effect.service(HttpServerRequest.HttpServerRequest), (request) =>
    Effect.flatMap(Effect.service(BodyLimit), (limit) => {
      if (!isJsonContentType(request.headers["content-type"])) {
        return Effect.fail(
          GatewayError.unsupportedMedia("This endpoint takes a JSON body; set the header Content-Type: application/json.")
        )
      }
      const declared = Number(request.headers["content-length"] ?? "")
      if (Number.isFinite(declared) && declared > limit) return Effect.fail(tooLarge(limit))
      return request.text.pipe(
        Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(limit)),
        Effect.catch((error) =>
          error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"
            ? Effect.fail(tooLarge(limit))
            : Effect.fail(GatewayError.invalid("The request body could not be read."))
        ),
        Effect.flatMap(parseObject)
      )
    })
  )

/** Decodes an already-parsed body; the decoder is built once per schema, not per request. */
export const bodyDecoder = <S extends Schema.Decoder<unknown>>(schema: S) => {
  const decode = Schema.decodeUnknownEffect(schema)
  return (input: unknown): Effect.Effect<S["Type"], GatewayError, S["DecodingServices"]> =>
    Effect.mapError(decode(input), schemaErrorToGateway)
}
