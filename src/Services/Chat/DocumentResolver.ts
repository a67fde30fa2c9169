import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { FilePart, ImageUrlPart, UserContentPart } from "../../Domain/ChatContentPart.ts"
import type { ChatMessage } from "../../Domain/ChatMessage.ts"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"
import { isBase64From } from "../../Domain/InlineData.ts"
import { Extractor } from "../Files/Extractor.ts"
import { Files } from "../Files/Files.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { UrlFetcher } from "../Fetch/UrlFetcher.ts"

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

/**
 * Turns every `file` part into a resolved document before routing (spec 2.3): bytes from this
 * project's file store, inline base64 or a URL fetched through the guarded fetcher; text from
 * the Extractor (cached per content); rendered pages for vision models where needed. A scanned
 * PDF without a vision model is refused here, before any upstream call.
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

      const fetchBytes = (part: FilePart, path: string, needs: DeliveryNeeds) =>
        Effect.gen(function* () {
          const file = part.file
          if (file.file_id !== undefined) {
            // Another project's file is unknown here, exactly like an id that never existed; a
            // storage outage stays a 503.
            const stored = yield* files.bytes(needs.projectId, file.file_id, settings.max_inline_mb * 1024 * 1024).pipe(
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
            const fetched = yield* fetcher.fetch(file.file_url, {
              param: `${path}.file.file_url`,
              maxBytes: settings.max_inline_mb * 1024 * 1024
            })
            return {
              bytes: fetched.bytes,
              filename: file.filename ?? fetched.filename ?? "document",
              mimeType: file.mime_type ?? fetched.contentType?.split(";")[0]?.trim()
            }
          }
          return yield* GatewayError.invalid(`'${path}.file' needs one of 'file_id', 'file_data' or 'file_url'.`, `${path}.file`)
        })

      const resolveFile = (part: FilePart, path: string, needs: DeliveryNeeds) =>
        Effect.gen(function* () {
          const source = yield* fetchBytes(part, path, needs)
          const extracted = yield* extractor
            .extract({ bytes: source.bytes, filename: source.filename, mimeType: source.mimeType })
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
          const resolved: FilePart = {
            ...part,
            resolved: {
              filename: source.filename,
              mimeType: extracted.mimeType,
              data: Buffer.from(source.bytes).toString("base64"),
              text: extracted.text,
              pages: extracted.pages,
              scanned: extracted.scanned,
              pageImages: pages.map((png) => `data:image/png;base64,${Buffer.from(png).toString("base64")}`)
            }
          }
          return resolved
        })

      const resolveImage = (part: ImageUrlPart, path: string) =>
        Effect.gen(function* () {
          const url = part.image_url.url
          if (!/^https?:/i.test(url)) return part
          const fetched = yield* fetcher.fetch(url, { param: `${path}.image_url.url`, accept: "image/*" })
          const type = fetched.contentType?.split(";")[0]?.trim() ?? ""
          if (!type.startsWith("image/")) {
            return yield* GatewayError.invalid(`The URL at '${path}.image_url.url' did not return an image (${type || "no type"}).`, `${path}.image_url.url`)
          }
          const inlined: ImageUrlPart = {
            ...part,
            image_url: { ...part.image_url, url: `data:${type};base64,${Buffer.from(fetched.bytes).toString("base64")}` }
          }
          return inlined
        })

      const resolve = Effect.fn("DocumentResolver.resolve")(function* (request: ChatRequest, needs: DeliveryNeeds) {
        const needsWork = request.messages.some(
          (m) =>
            m.role === "user" &&
            typeof m.content !== "string" &&
            m.content.some((p) => p.type === "file" || (needs.inlineImageUrls && p.type === "image_url" && /^https?:/i.test(p.image_url.url)))
        )
        if (!needsWork) return request
        const messages = yield* Effect.forEach(request.messages, (message, i): Effect.Effect<ChatMessage, GatewayError> => {
          if (message.role !== "user" || typeof message.content === "string") return Effect.succeed(message)
          return Effect.map(
            Effect.forEach(
              message.content,
              (part, j): Effect.Effect<UserContentPart, GatewayError> => {
                const path = `messages[${i}].content[${j}]`
                if (part.type === "file") return resolveFile(part, path, needs)
                if (part.type === "image_url" && needs.inlineImageUrls) return resolveImage(part, path)
                return Effect.succeed(part)
              },
              { concurrency: 4 }
            ),
            (content) => ({ ...message, content })
          )
        })
        return { ...request, messages }
      })

      return DocumentResolver.of({ resolve })
    })
  )
}
