import * as Schema from "effect/Schema"

/** Content parts of spec 2.2 / 2.3. Each is decoded only after its `type` selected it. */

export const TextPart = Schema.Struct({
  type: Schema.Literal("text"),
  text: Schema.String
})
export type TextPart = typeof TextPart.Type

export const ImageUrlPart = Schema.Struct({
  type: Schema.Literal("image_url"),
  image_url: Schema.Struct({
    url: Schema.NonEmptyString,
    detail: Schema.optionalKey(Schema.Literals(["auto", "low", "high"]))
  })
})
export type ImageUrlPart = typeof ImageUrlPart.Type

export const InputAudioPart = Schema.Struct({
  type: Schema.Literal("input_audio"),
  input_audio: Schema.Struct({
    data: Schema.NonEmptyString,
    /** The audio file extension, e.g. wav, mp3. */
    format: Schema.NonEmptyString
  })
})
export type InputAudioPart = typeof InputAudioPart.Type

export const VideoFormat = Schema.Literals(["mp4", "mpeg", "mov", "webm"])
export type VideoFormat = typeof VideoFormat.Type

export const InputVideoPart = Schema.Struct({
  type: Schema.Literal("input_video"),
  input_video: Schema.Struct({
    url: Schema.optionalKey(Schema.NonEmptyString),
    data: Schema.optionalKey(Schema.NonEmptyString),
    format: Schema.optionalKey(VideoFormat)
  })
})
export type InputVideoPart = typeof InputVideoPart.Type

export const FilePart = Schema.Struct({
  type: Schema.Literal("file"),
  file: Schema.Struct({
    filename: Schema.optionalKey(Schema.String),
    file_data: Schema.optionalKey(Schema.NonEmptyString),
    file_url: Schema.optionalKey(Schema.NonEmptyString),
    file_id: Schema.optionalKey(Schema.NonEmptyString),
    mime_type: Schema.optionalKey(Schema.NonEmptyString)
  })
})

/**
 * What the gateway learned about a document before routing: its detected type, its text, and
 * for PDFs sent to vision models the rendered pages. Never decoded from a client body; the
 * document resolver adds it, and each adapter picks native delivery or text from it.
 */
export interface ResolvedDocument {
  readonly filename: string
  /** Detected from the content, not the client's claim. */
  readonly mimeType: string
  /** Base64 of the bytes, without a data-URL prefix. */
  readonly data: string
  readonly text: string
  readonly pages: number | null
  readonly scanned: boolean
  /** PNG data URLs of rendered pages (vision models only). */
  readonly pageImages: ReadonlyArray<string>
}

export type FilePart = typeof FilePart.Type & { readonly resolved?: ResolvedDocument }

/** Only in assistant history: a refusal the model gave earlier. */
export const RefusalPart = Schema.Struct({
  type: Schema.Literal("refusal"),
  refusal: Schema.String
})
export type RefusalPart = typeof RefusalPart.Type

export type UserContentPart = TextPart | ImageUrlPart | InputAudioPart | InputVideoPart | FilePart
export type ContentPart = UserContentPart | RefusalPart

export const userPartSchemas = {
  text: TextPart,
  image_url: ImageUrlPart,
  input_audio: InputAudioPart,
  input_video: InputVideoPart,
  file: FilePart
} as const

export const textPartSchemas = { text: TextPart } as const
export const assistantPartSchemas = { text: TextPart, refusal: RefusalPart } as const
