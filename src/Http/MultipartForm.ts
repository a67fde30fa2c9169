import * as ByteSize from "effect/ByteSize"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import * as HttpIncomingMessage from "effect/http/HttpIncomingMessage"
import * as HttpServerRequest from "effect/http/HttpServerRequest"
import * as Multipart from "effect/http/Multipart"
import { GatewayError } from "../Domain/GatewayError.ts"
import { GatewayConfigFile } from "../Services/Config/GatewayConfigLoader.ts"
import { bodyTimedOut } from "./JsonBody.ts"
import { incomingMessageOf, requestHeader, serverResponseOf } from "./NodeMessage.ts"
import { uploadParts, type UploadOutcome } from "./UploadBody.ts"

/** The one file part of a form, as it streams in; `content` fails with `tooLarge` past the file limit. */
export interface FormFile {
  readonly key: string
  readonly filename: string
  readonly contentType: string
  readonly content: Stream.Stream<Uint8Array, Multipart.MultipartError | GatewayError>
}

export interface MultipartFormOptions<E, R> {
  /** The field the file must come in (`file`). */
  readonly fileField: string
  /** Largest file accepted, exactly: a file of this many bytes passes, one more is `tooLarge`. */
  readonly maxFileBytes: number
  /** The 413 for a file (or body) over the limit. */
  readonly tooLarge: () => GatewayError
  /** The error for a request that is not multipart/form-data, given its Content-Type. */
  readonly notMultipart: (contentType: string) => GatewayError
  /** Consumes the file part, typically by streaming it to storage; it must read `content` to the end. */
  readonly onFile: (file: FormFile) => Effect.Effect<void, GatewayError | E, R>
  /** Largest text field; the default is 1 MiB. */
  readonly maxFieldBytes?: number
}

/** Form fields in arrival order per name (a name may repeat, like `timestamp_granularities[]`). */
export type MultipartFields = Record<string, Array<string>>

const controlCharacter = /[\u0000-\u001f\u007f]/

/** Fails with `tooLarge` as soon as more than `max` bytes went by, so the limit is exact. */
const capped = <E>(content: Stream.Stream<Uint8Array, E>, max: number, tooLarge: () => GatewayError) =>
  Stream.suspend(() => {
    let seen = 0
    return Stream.mapEffect(content, (chunk) => {
      seen += chunk.length
      return seen > max ? Effect.fail(tooLarge()) : Effect.succeed(chunk)
    })
  })

/**
 * Reads a multipart/form-data body: the text fields into memory (each bounded), the one file
 * part handed to `onFile` as a stream, so it is never held whole. The body is read straight from
 * Node's message (`UploadBody.ts`): a declared Content-Length over the limits is refused before
 * any byte is read, a chunked body as soon as it passes them, and a client that stops sending for
 * `resilience.body_read_timeout_seconds` gets a 408. A second file, a file in another field, a
 * file name with control characters or a malformed body is a 400 naming the field.
 */
export const readMultipartForm = <E, R>(options: MultipartFormOptions<E, R>) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const { config } = yield* GatewayConfigFile
    const contentType = requestHeader(request, "content-type") ?? ""
    if (!contentType.toLowerCase().startsWith("multipart/form-data")) return yield* options.notMultipart(contentType)
    // The form around the file is small: the body may be 1 MiB larger than the file.
    const bodyLimit = options.maxFileBytes + 1024 * 1024
    if (Number(requestHeader(request, "content-length") ?? 0) > bodyLimit) return yield* options.tooLarge()
    const stallMs = config.resilience.body_read_timeout_seconds * 1000
    const outcome: UploadOutcome = { timedOut: false, tooLarge: false }
    const message = incomingMessageOf(request)
    const parts = message === undefined
      ? request.multipartStream
      : uploadParts(message, serverResponseOf(request), { maxBodyBytes: bodyLimit, stallMs }, outcome)
    // No prototype: a field named `__proto__` or `constructor` is a field like any other.
    const fields: MultipartFields = Object.create(null) as MultipartFields
    let files = 0
    yield* parts.pipe(
      Stream.runForEach((part) =>
        Effect.gen(function*() {
          if (part._tag === "Field") {
            if (part.key === options.fileField) {
              return yield* GatewayError.invalid(`'${options.fileField}' must be sent as a file (a form part with a filename).`, options.fileField)
            }
            ;(fields[part.key] ??= []).push(part.value)
            return
          }
          if (part.key !== options.fileField) {
            return yield* GatewayError.invalid(`Unexpected file field '${part.key}'; send the file as '${options.fileField}'.`, part.key)
          }
          if (++files > 1) return yield* GatewayError.invalid(`Send exactly one '${options.fileField}' per request.`, options.fileField)
          if (controlCharacter.test(part.name)) {
            return yield* GatewayError.invalid("The file name may not contain control characters.", options.fileField)
          }
          yield* options.onFile({
            key: part.key,
            filename: part.name,
            contentType: part.contentType,
            content: capped(part.content, options.maxFileBytes, options.tooLarge)
          })
        })
      ),
      Effect.mapError((error): GatewayError | Exclude<E, Multipart.MultipartError> => {
        if (!(error instanceof Multipart.MultipartError)) return error as GatewayError | Exclude<E, Multipart.MultipartError>
        if (outcome.timedOut) return bodyTimedOut(stallMs)
        if (outcome.tooLarge) return options.tooLarge()
        switch (error.reason._tag) {
          case "FileTooLarge":
          case "BodyTooLarge":
            return options.tooLarge()
          case "FieldTooLarge":
            return GatewayError.invalid("A form field is too large.", undefined, "field_too_large")
          case "TooManyParts":
            return GatewayError.invalid("The form has too many parts.")
          default:
            return GatewayError.invalid("The multipart body could not be parsed.", options.fileField)
        }
      }),
      Effect.provideService(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(bodyLimit)),
      Effect.provideService(Multipart.MaxFieldSize, ByteSize.bytes(options.maxFieldBytes ?? 1024 * 1024)),
      Effect.provideService(Multipart.MaxParts, 64)
    )
    return { fields, files }
  })
