import { decodedSize } from "../../Domain/ChatCapabilityGate.ts"
import type { FilePart, ImageUrlPart } from "../../Domain/ChatContentPart.ts"
import type { ChatRequest } from "../../Domain/ChatRequest.ts"
import { GatewayError } from "../../Domain/GatewayError.ts"

/** A document or image part of a user message, with the path errors name. */
export interface SourcePart {
  readonly path: string
  readonly part: FilePart | ImageUrlPart
}

/** Every `file` and `image_url` part of the request's user messages, in order. */
export const sourceParts = (request: ChatRequest): Array<SourcePart> => {
  const out: Array<SourcePart> = []
  request.messages.forEach((message, i) => {
    if (message.role !== "user" || typeof message.content === "string") return
    message.content.forEach((part, j) => {
      if (part.type === "file" || part.type === "image_url") out.push({ path: `messages[${i}].content[${j}]`, part })
    })
  })
  return out
}

/** The field of a part that carries its source, for error messages. */
export const sourceField = ({ path, part }: SourcePart): string => {
  if (part.type === "image_url") return `${path}.image_url.url`
  const file = part.file
  return `${path}.file.${file.file_id !== undefined ? "file_id" : file.file_data !== undefined ? "file_data" : "file_url"}`
}

/** A key equal for parts that resolve to the same thing, so a repeated source is read once. */
export const sourceKey = ({ path, part }: SourcePart): string => {
  if (part.type === "image_url") return `image\u0000${part.image_url.url}`
  const file = part.file
  // Inline data is in the body already: each part is its own source (and never copied into a key).
  if (file.file_data !== undefined) return `inline\u0000${path}`
  return `file\u0000${file.file_id ?? ""}\u0000${file.file_url ?? ""}\u0000${file.filename ?? ""}\u0000${file.mime_type ?? ""}`
}

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`

/**
 * The bytes a chat request's documents and images may add up to (`files.max_inline_mb`, the
 * spec's 50 MB inline budget applied to every source kind: `file_data`, `file_id`, `file_url`
 * and `image_url`). Each part counts what it carries to the model, so a source repeated n times
 * counts n times, though it is read once.
 */
export const makeByteBudget = (maxBytes: number) => {
  let spent = 0
  return {
    /** What is still free: the most a fetch for this request may read. */
    left: () => Math.max(0, maxBytes - spent),
    /** Counts `bytes` for the part at `field`; the 413 naming the limit and the field past it. */
    charge: (bytes: number, field: string): GatewayError | undefined => {
      spent += bytes
      return spent > maxBytes
        ? GatewayError.tooLarge(
          `The documents and images of this request add up to more than ${mb(maxBytes)} (files.max_inline_mb), reached at '${field}'. Send fewer or smaller files, or split the request.`,
          field
        )
        : undefined
    }
  }
}
export type ByteBudget = ReturnType<typeof makeByteBudget>

/** The 400 for a request with more document and image parts than `files.max_parts`. */
export const tooManyParts = (parts: ReadonlyArray<SourcePart>, maxParts: number): GatewayError | undefined =>
  parts.length <= maxParts
    ? undefined
    : GatewayError.invalid(
      `This request has ${parts.length} document and image parts; at most ${maxParts} are allowed (files.max_parts). Send fewer parts, or repeat a file by sending it once.`,
      sourceField(parts[maxParts]!),
      "too_many_parts"
    )

/** Bytes an inline part carries, known before anything is read: base64 `file_data` and `data:` image URLs. */
export const inlineBytes = ({ part }: SourcePart): number => {
  if (part.type === "image_url") return /^data:/i.test(part.image_url.url) ? decodedSize(part.image_url.url) : 0
  return part.file.file_data === undefined ? 0 : decodedSize(part.file.file_data)
}
