import * as Effect from "effect/Effect"
import type { JsonObject } from "../../Domain/ChatTool.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { sniffImageMime } from "../../Domain/ImageBytes.ts"
import { textMimeByExtension } from "../../Domain/TextTypes.ts"
import type { Files } from "../Files/Files.ts"

/**
 * `input_image` and `input_file` parts naming a file by `file_id` read that file of the key's
 * project (uploaded through `/v1/files`) into the part as inline data, before the request is
 * translated: every provider then gets the bytes in its own format, and OpenAI's own Responses
 * API (a native call) never sees an id it does not know. The stored conversation keeps the ids.
 *
 * Bounded like chat's documents: at most `files.max_parts` such parts, whose files together stay
 * within `files.max_inline_mb` (checked from the store's sizes before a byte is read); a file
 * named twice is read once. Another project's file is as unknown as one that never existed.
 */

export interface FileLimits {
  readonly maxBytes: number
  readonly maxParts: number
}

interface FileRef {
  readonly id: string
  readonly path: string
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value)

/** GIF, which OpenAI, Anthropic and Gemini all read, besides the formats `sniffImageMime` knows. */
const isGif = (bytes: Uint8Array): boolean => {
  const signature = Buffer.from(bytes.subarray(0, 6)).toString("latin1")
  return signature === "GIF87a" || signature === "GIF89a"
}

/** Where an item's part is named in errors: this request's input, or the stored response it continues. */
const pathOf = (index: number, continued: number, j: number): string =>
  index < continued ? "previous_response_id" : `input[${index - continued}].content[${j}].file_id`

const fileRefs = (items: ReadonlyArray<JsonObject>, continued: number): Array<FileRef> =>
  items.flatMap((item, i) =>
    item["type"] !== "message" || item["role"] !== "user" || !Array.isArray(item["content"])
      ? []
      : item["content"].flatMap((part, j): Array<FileRef> =>
        isRecord(part) && (part["type"] === "input_image" || part["type"] === "input_file") && typeof part["file_id"] === "string"
          ? [{ id: part["file_id"], path: pathOf(i, continued, j) }]
          : []
      )
  )

/**
 * A document's type for its data URL, which a provider reading it natively goes by: its
 * signature, else the type it was uploaded with, else its extension (text has no signature).
 */
const documentMime = (bytes: Uint8Array, filename: string, declared: string): Effect.Effect<string> =>
  Effect.map(
    Effect.promise(() => import("file-type").then(({ fileTypeFromBuffer }) => fileTypeFromBuffer(bytes)).catch(() => undefined)),
    (sniffed) =>
      sniffed?.mime ??
        (declared !== "" && declared !== "application/octet-stream" ? declared : undefined) ??
        textMimeByExtension.get(filename.slice(filename.lastIndexOf(".") + 1).toLowerCase()) ??
        "application/octet-stream"
  )

const dataUrl = (mime: string, bytes: Uint8Array): string => `data:${mime};base64,${Buffer.from(bytes).toString("base64")}`

/**
 * The conversation with every `file_id` part inline (`items` itself when none names a file).
 * `continued` items at the front came from a stored response.
 */
export const resolveInputFiles = (
  files: Files["Service"],
  limits: FileLimits,
  projectId: string,
  items: ReadonlyArray<JsonObject>,
  continued: number
): Effect.Effect<ReadonlyArray<JsonObject>, GatewayError> =>
  Effect.gen(function* () {
    const refs = fileRefs(items, continued)
    if (refs.length === 0) return items
    if (refs.length > limits.maxParts) {
      return yield* GatewayError.invalid(
        `At most ${limits.maxParts} files can be sent in one request (files.max_parts); this one names ${refs.length}.`,
        refs[limits.maxParts]!.path,
        "too_many_parts"
      )
    }
    const notFound = (ref: FileRef) => (error: GatewayError) =>
      error.reason._tag === "NotFound" ? GatewayError.invalid(`No such File object: ${ref.id}`, ref.path, "file_not_found") : error
    // Sizes first, from the store's records: a request over the budget reads nothing.
    const distinct = [...new Map(refs.map((ref) => [ref.id, ref])).values()]
    let total = 0
    for (const ref of distinct) {
      const record = yield* Effect.mapError(files.record(projectId, ref.id), notFound(ref))
      total += record.bytes
      if (total > limits.maxBytes) {
        return yield* GatewayError.tooLarge(
          `The files this request names add up to more than ${Math.floor(limits.maxBytes / (1024 * 1024))} MB (files.max_inline_mb).`,
          ref.path
        )
      }
    }
    const read = new Map<string, { readonly bytes: Uint8Array; readonly filename: string; readonly contentType: string }>()
    yield* Effect.forEach(
      distinct,
      (ref) =>
        Effect.map(Effect.mapError(files.bytes(projectId, ref.id, limits.maxBytes), notFound(ref)), (stored) => {
          read.set(ref.id, { bytes: stored.bytes, filename: stored.file.filename, contentType: stored.file.contentType })
        }),
      { concurrency: 4, discard: true }
    )
    const inline = (part: Record<string, unknown>, path: string): Effect.Effect<Record<string, unknown>, GatewayError> => {
      const file = read.get(part["file_id"] as string)!
      const { file_id: _id, ...rest } = part
      if (part["type"] === "input_image") {
        const mime = sniffImageMime(file.bytes) ?? (isGif(file.bytes) ? "image/gif" : undefined)
        if (mime === undefined) {
          return Effect.fail(GatewayError.invalid(`'${path}' names ${file.filename}, which is not a PNG, JPEG, GIF or WebP image.`, path, "invalid_image"))
        }
        return Effect.succeed({ ...rest, image_url: dataUrl(mime, file.bytes) })
      }
      return Effect.map(documentMime(file.bytes, file.filename, file.contentType), (mime) => ({
        ...rest,
        filename: part["filename"] ?? file.filename,
        file_data: dataUrl(mime, file.bytes)
      }))
    }
    return yield* Effect.forEach(items, (item, i) => {
      if (item["type"] !== "message" || item["role"] !== "user" || !Array.isArray(item["content"])) return Effect.succeed(item)
      const content = item["content"] as ReadonlyArray<unknown>
      if (!content.some((part) => isRecord(part) && typeof part["file_id"] === "string")) return Effect.succeed(item)
      return Effect.map(
        Effect.forEach(content, (part, j) =>
          isRecord(part) && typeof part["file_id"] === "string" ? inline(part, pathOf(i, continued, j)) : Effect.succeed(part)),
        (parts): JsonObject => ({ ...item, content: parts })
      )
    })
  })
