import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { FilePart, ImageUrlPart, UserContentPart } from "../../Domain/ChatContentPart.ts"
import type { ChatMessage } from "../../Domain/ChatMessage.ts"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { isBase64From } from "../../Domain/InlineData.ts"
import { Extractor, type ExtractInput } from "../Files/Extractor.ts"
import { Files } from "../Files/Files.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { UrlFetcher } from "../Fetch/UrlFetcher.ts"
import { type ByteBudget, inlineBytes, makeByteBudget, type SourcePart, sourceField, sourceKey, sourceParts, tooManyParts } from "./DocumentBudget.ts"

/** What the routes a request may take need from its documents and images. */
export interface DeliveryNeeds {
  readonly projectId: string
  /** The model (and every fallback) reads images: render PDF pages for them. */
  readonly vision: boolean
  /** Some route cannot take PDFs natively, so rendered pages may be needed for vision models. */
  readonly someRouteLacksNativePdf: boolean
  /** Some route cannot fetch image URLs itself (Gemini): fetch them here, through the guarded fetcher. */
  readonly inlineImageUrls: boolean
}

const withParam = (error: GatewayError, param: string): GatewayError =>
  error.reason._tag === "InvalidRequest" && error.reason.param === undefined
    ? GatewayError.invalid(error.reason.message, param, error.reason.code)
    : error

const base64Payload = (data: string): string => {
  const comma = data.startsWith("data:") ? data.indexOf(",") : -1
  return comma === -1 ? data : data.slice(comma + 1)
}

/** Trailing whitespace is allowed, and nothing at all (an empty file); the rest is checked in one pass. */
const isBase64 = (value: string): boolean => {
  const payload = value.trimEnd()
  return payload === "" || isBase64From(payload, 0)
}

type Resolved = UserContentPart

/** A multiple of 3 bytes, so the base64 of the slices joins into the base64 of the whole. */
const base64Slice = 3 * 1024 * 1024

/** Base64 of `bytes`, a slice at a time with the event loop free in between (50 MB in one go holds it ~200 ms). */
const base64Sliced = (bytes: Uint8Array): Effect.Effect<string> =>
  Effect.gen(function* () {
    const pieces: Array<string> = []
    for (let at = 0; at < bytes.length; at += base64Slice) {
      if (at > 0) yield* Effect.yieldNow
      pieces.push(Buffer.from(bytes.buffer, bytes.byteOffset + at, Math.min(base64Slice, bytes.length - at)).toString("base64"))
    }
    return pieces.join("")
  })

/**
 * Turns every `file` part into a resolved document before routing (spec 2.3): bytes from this
 * project's file store, inline base64 or a URL fetched through the guarded fetcher; text from
 * the Extractor (cached per content); rendered pages for vision models where needed. A scanned
 * PDF without a vision model is refused here, before any upstream call.
 *
 * Bounded whatever the request asks: at most `files.max_parts` document and image parts, whose
 * bytes together stay within `files.max_inline_mb` (checked from the store's sizes and the
 * inline lengths before anything is read; a fetch reads at most what is left); a source named
 * twice is read and extracted once; a document is loaded only once an extraction slot is held.
 */
export class DocumentResolver extends Context.Service<
  DocumentResolver,
  { readonly resolve: (request: ChatRequest, needs: DeliveryNeeds) => Effect.Effect<ChatRequest, GatewayError> }
>()("gateway/DocumentResolver") {
  static readonly layer = Layer.effect(
    DocumentResolver,
    Effect.gen(function* () {
      const files = yield* Files
      const extractor = yield* Extractor
      const fetcher = yield* UrlFetcher
      const settings = (yield* GatewayConfigFile).config.files
      const maxBytes = settings.max_inline_mb * 1024 * 1024

      const loadFile = (part: FilePart, path: string, needs: DeliveryNeeds, budget: ByteBudget): Effect.Effect<ExtractInput, GatewayError> =>
        Effect.gen(function* () {
          const file = part.file
          if (file.file_id !== undefined) {
            // Another project's file is unknown here, exactly like an id that never existed; a
            // storage outage stays a 503.
            const stored = yield* files.bytes(needs.projectId, file.file_id, maxBytes).pipe(
              Effect.mapError((error) =>
                error.reason._tag === "NotFound"
                  ? GatewayError.invalid(`No such File object: ${file.file_id}`, `${path}.file.file_id`)
                  : error.reason._tag === "PayloadTooLarge"
                  ? GatewayError.tooLarge(error.reason.message, `${path}.file.file_id`)
                  : error
              )
            )
            return { bytes: stored.bytes, filename: file.filename ?? stored.file.filename, mimeType: file.mime_type ?? stored.file.contentType }
          }
          if (file.file_data !== undefined) {
            const payload = base64Payload(file.file_data)
            if (!isBase64(payload)) return yield* GatewayError.invalid(`'${path}.file.file_data' is not valid base64.`, `${path}.file.file_data`)
            const declared = file.file_data.startsWith("data:") ? file.file_data.slice(5, file.file_data.indexOf(";")) : undefined
            return { bytes: Buffer.from(payload, "base64"), filename: file.filename ?? "document", mimeType: file.mime_type ?? declared }
          }
          if (file.file_url !== undefined) {
            const fetched = yield* fetcher.fetch(file.file_url, { param: `${path}.file.file_url`, maxBytes: Math.max(1, budget.left()) })
            return {
              bytes: fetched.bytes,
              filename: file.filename ?? fetched.filename ?? "document",
              mimeType: file.mime_type ?? fetched.contentType?.split(";")[0]?.trim()
            }
          }
          return yield* GatewayError.invalid(`'${path}.file' needs one of 'file_id', 'file_data' or 'file_url'.`, `${path}.file`)
        })

      /** Loads and reads one distinct file source; what every part naming it shares. */
      const readFile = (part: FilePart, path: string, needs: DeliveryNeeds, budget: ByteBudget) =>
        Effect.gen(function* () {
          const { document: extracted, input: source } = yield* extractor
            .extractFrom(loadFile(part, path, needs, budget))
            .pipe(Effect.mapError((error) => withParam(error, `${path}.file`)))
          const hasText = (extracted.pageTexts ?? [extracted.text]).some((page) => page.trim() !== "")
          if (extracted.scanned && !hasText && !needs.vision) {
            return yield* GatewayError.invalid(
              `'${source.filename}' is a scanned PDF with no text layer; it needs a vision-capable model.`,
              `${path}.file`,
              "vision_model_required"
            )
          }
          const renderPages = extracted.format === "pdf" && needs.vision && needs.someRouteLacksNativePdf
          const pages = renderPages
            ? yield* extractor
              .renderPdfPages({ bytes: source.bytes, filename: source.filename, maxPages: settings.extraction.max_rendered_pages })
              .pipe(Effect.mapError((error) => withParam(error, `${path}.file`)))
            : []
          return {
            filename: source.filename,
            mimeType: extracted.mimeType,
            data: yield* base64Sliced(source.bytes),
            text: extracted.text,
            pages: extracted.pages,
            scanned: extracted.scanned,
            pageImages: pages.map((png) => `data:image/png;base64,${Buffer.from(png).toString("base64")}`),
            bytes: source.bytes.length
          }
        })

      const readImage = (part: ImageUrlPart, path: string, budget: ByteBudget) =>
        Effect.gen(function* () {
          const url = part.image_url.url
          const fetched = yield* fetcher.fetch(url, { param: `${path}.image_url.url`, accept: "image/*", maxBytes: Math.max(1, budget.left()) })
          const type = fetched.contentType?.split(";")[0]?.trim() ?? ""
          if (!type.startsWith("image/")) {
            return yield* GatewayError.invalid(`The URL at '${path}.image_url.url' did not return an image (${type || "no type"}).`, `${path}.image_url.url`)
          }
          return { url: `data:${type};base64,${yield* base64Sliced(fetched.bytes)}`, bytes: fetched.bytes.length }
        })

      const resolve = Effect.fn("DocumentResolver.resolve")(function* (request: ChatRequest, needs: DeliveryNeeds) {
        const parts = sourceParts(request)
        const fetchedImage = (part: SourcePart["part"]) => needs.inlineImageUrls && part.type === "image_url" && /^https?:/i.test(part.image_url.url)
        if (!parts.some(({ part }) => part.type === "file" || fetchedImage(part))) return request
        const tooMany = tooManyParts(parts, settings.max_parts)
        if (tooMany !== undefined) return yield* tooMany

        // What is known before reading anything: inline lengths and the store's sizes.
        const budget = makeByteBudget(maxBytes)
        const stored = new Map<string, number>()
        for (const source of parts) {
          const id = source.part.type === "file" ? source.part.file.file_id : undefined
          let size = inlineBytes(source)
          if (id !== undefined) {
            size = stored.get(id) ?? (yield* files.record(needs.projectId, id).pipe(Effect.map((record) => record.bytes), Effect.orElseSucceed(() => 0)))
            stored.set(id, size)
          }
          const over = budget.charge(size, sourceField(source))
          if (over !== undefined) return yield* over
        }

        // One read per distinct source, shared by the parts that name it; fetched bytes are counted once read.
        const fetchedBudget = makeByteBudget(budget.left())
        const reads = new Map<string, Effect.Effect<unknown, GatewayError>>()
        for (const source of parts) {
          const key = sourceKey(source)
          if (reads.has(key)) continue
          const { part, path } = source
          const read: Effect.Effect<unknown, GatewayError> =
            part.type === "file"
              ? readFile(part, path, needs, fetchedBudget)
              : fetchedImage(part)
              ? readImage(part, path, fetchedBudget)
              : Effect.succeed(undefined)
          reads.set(key, yield* Effect.cached(read))
        }
        const resolved = new Map<string, Resolved>()
        yield* Effect.forEach(
          parts,
          (source) =>
            Effect.gen(function* () {
              const value = yield* reads.get(sourceKey(source))!
              const { part, path } = source
              if (part.type === "file") {
                const file = value as Effect.Success<ReturnType<typeof readFile>>
                // A fetched document counts when read; each further part naming it counts again.
                if (part.file.file_url !== undefined) {
                  const over = fetchedBudget.charge(file.bytes, sourceField(source))
                  if (over !== undefined) return yield* over
                }
                const { bytes: _bytes, ...content } = file
                resolved.set(path, { ...part, resolved: content })
              } else if (value !== undefined) {
                const image = value as Effect.Success<ReturnType<typeof readImage>>
                const over = fetchedBudget.charge(image.bytes, sourceField(source))
                if (over !== undefined) return yield* over
                resolved.set(path, { ...part, image_url: { ...part.image_url, url: image.url } })
              }
            }),
          { concurrency: 4, discard: true }
        )
        const messages = request.messages.map((message, i): ChatMessage => {
          if (message.role !== "user" || typeof message.content === "string") return message
          return { ...message, content: message.content.map((part, j) => resolved.get(`messages[${i}].content[${j}]`) ?? part) }
        })
        return { ...request, messages }
      })

      return DocumentResolver.of({ resolve })
    })
  )
}
