import * as Effect from "effect/Effect"
import { GatewayError } from "./GatewayError.ts"
import type { ImageEndpoint, ImageReference, ImageRequest } from "./ImageRequest.ts"
import { trimEndChars } from "./TrimChars.ts"

/**
 * Decoders of `POST /v1/images/generations` and `POST /v1/images` (spec 4.5). Every field is
 * checked by hand so that each failure names its field the way the client wrote it
 * (`input_references[2].image_url.url`); a field neither endpoint knows is refused by name rather
 * than dropped. Whether the model takes a value is the catalogue gate's business (`ImageGate.ts`).
 */

type Body = Readonly<Record<string, unknown>>

const invalid = (param: string, detail: string): GatewayError => GatewayError.invalid(`Invalid value for '${param}': ${detail}.`, param)

/** An unrecognised top-level field, the way OpenAI words it. */
const unknownField = (key: string, endpoint: ImageEndpoint): GatewayError =>
  GatewayError.invalid(
    `Unrecognized request argument supplied: '${key}'. ${endpoint === "images" ? "POST /v1/images" : "POST /v1/images/generations"} does not take it.`,
    key,
    "unknown_parameter"
  )

const optionalString = (body: Body, key: string): string | undefined | GatewayError => {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== "string" || value.trim() === "") return invalid(key, "expected a non-empty string")
  return value
}

const requiredString = (body: Body, key: string): string | GatewayError => {
  const value = optionalString(body, key)
  return value === undefined ? GatewayError.invalid(`Missing required parameter: '${key}'.`, key, "missing_required_parameter") : value
}

const optionalInt = (body: Body, key: string, min: number, max: number): number | undefined | GatewayError => {
  const value = body[key]
  if (value === undefined || value === null) return undefined
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    return invalid(key, `expected an integer from ${min} to ${max}`)
  }
  return value
}

/** Most input references one request may list, whatever the model: bounds the work before the gate. */
export const maxReferencesPerRequest = 64
/** Most images one request may ask for, whatever the model (OpenAI's own bound). */
export const maxImagesPerRequest = 10

const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/

/** Whether `text` is standard base64 that decodes to at least one byte (whitespace allowed, padding optional). */
export const isDecodableBase64 = (text: string): boolean => {
  const compact = text.replace(/\s+/g, "")
  if (compact.length === 0 || !base64Pattern.test(compact)) return false
  const unpadded = trimEndChars(compact, "=")
  if (unpadded.length % 4 === 1) return false
  return compact.includes("=") ? compact.length % 4 === 0 : true
}

const dataUrlPattern = /^data:([^;,]*)((?:;[^;,]*)*),/i

/** `url` of one input reference: a data URL, an http(s) URL or a file id (`file-...`). */
export const decodeReferenceUrl = (url: string, param: string): ImageReference | GatewayError => {
  if (/^data:/i.test(url)) {
    const head = dataUrlPattern.exec(url)
    if (head === null) return invalid(param, "a data URL needs a comma before its data")
    const parameters = head[2]!.toLowerCase().split(";")
    if (!parameters.includes("base64")) return invalid(param, "a data URL must carry base64 data (`;base64,`)")
    const base64 = url.slice(head[0].length)
    if (!isDecodableBase64(base64)) return invalid(param, "the data URL's base64 does not decode")
    return { _tag: "Data", mimeType: head[1]!.trim().toLowerCase(), base64, param }
  }
  if (/^https?:\/\//i.test(url)) return { _tag: "Url", url, param }
  if (/^file-[A-Za-z0-9_-]+$/.test(url)) return { _tag: "File", fileId: url, param }
  return invalid(param, "expected an http(s) URL, a data URL or a file id from POST /v1/files")
}

const decodeReference = (raw: unknown, i: number): ImageReference | GatewayError => {
  const at = `input_references[${i}]`
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return invalid(at, "expected an object {type: 'image_url', image_url: {url}}")
  const part = raw as Body
  if (part["type"] !== "image_url") return invalid(`${at}.type`, "expected 'image_url'")
  for (const key of Object.keys(part)) if (key !== "type" && key !== "image_url") return unknownField(`${at}.${key}`, "images")
  const image = part["image_url"]
  if (typeof image !== "object" || image === null || Array.isArray(image)) return invalid(`${at}.image_url`, "expected an object with a 'url'")
  const fields = image as Body
  for (const key of Object.keys(fields)) if (key !== "url" && key !== "file_id") return unknownField(`${at}.image_url.${key}`, "images")
  const fileId = fields["file_id"]
  if (fileId !== undefined) {
    if (fields["url"] !== undefined) return invalid(`${at}.image_url`, "give either 'url' or 'file_id', not both")
    if (typeof fileId !== "string" || !/^file-[A-Za-z0-9_-]+$/.test(fileId)) return invalid(`${at}.image_url.file_id`, "expected a file id (file-...)")
    return { _tag: "File", fileId, param: `${at}.image_url.file_id` }
  }
  const url = fields["url"]
  if (typeof url !== "string" || url === "") return invalid(`${at}.image_url.url`, "expected a URL, a data URL or a file id")
  return decodeReferenceUrl(url, `${at}.image_url.url`)
}

const decodeReferences = (raw: unknown): ReadonlyArray<ImageReference> | GatewayError => {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) return invalid("input_references", "expected an array of image references")
  if (raw.length > maxReferencesPerRequest) return invalid("input_references", `expected at most ${maxReferencesPerRequest} references`)
  const references: Array<ImageReference> = []
  for (const [i, item] of raw.entries()) {
    const reference = decodeReference(item, i)
    if (reference instanceof GatewayError) return reference
    references.push(reference)
  }
  return references
}

const fieldsOf: Record<ImageEndpoint, ReadonlySet<string>> = {
  generations: new Set([
    "model", "prompt", "n", "size", "quality", "style", "background", "response_format",
    "output_format", "output_compression", "user", "safety_identifier", "stream"
  ]),
  images: new Set([
    "model", "prompt", "input_references", "n", "aspect_ratio", "quality", "resolution",
    "output_format", "output_compression", "user", "safety_identifier"
  ])
}

const decode = (body: Body, endpoint: ImageEndpoint): ImageRequest | GatewayError => {
  for (const key of Object.keys(body)) if (!fieldsOf[endpoint].has(key)) return unknownField(key, endpoint)
  const model = requiredString(body, "model")
  if (model instanceof GatewayError) return model
  const prompt = requiredString(body, "prompt")
  if (prompt instanceof GatewayError) return prompt
  const n = optionalInt(body, "n", 1, maxImagesPerRequest)
  if (n instanceof GatewayError) return n
  const compression = optionalInt(body, "output_compression", 0, 100)
  if (compression instanceof GatewayError) return compression
  if (body["stream"] !== undefined && body["stream"] !== null && body["stream"] !== false) {
    return GatewayError.invalid("Streaming image generation is not supported; leave 'stream' unset or false.", "stream", "unsupported_parameter")
  }
  const strings: Record<string, string | undefined> = {}
  for (const key of ["size", "quality", "style", "background", "aspect_ratio", "resolution", "output_format", "user", "safety_identifier", "response_format"]) {
    const value = optionalString(body, key)
    if (value instanceof GatewayError) return value
    strings[key] = value
  }
  const format = strings["response_format"]
  if (format !== undefined && format !== "url" && format !== "b64_json") return invalid("response_format", "expected 'url' or 'b64_json'")
  const references = endpoint === "images" ? decodeReferences(body["input_references"]) : []
  if (references instanceof GatewayError) return references
  const user = strings["user"] ?? strings["safety_identifier"]
  const option = (key: string, name: string) => (strings[key] === undefined ? {} : { [name]: strings[key] })
  return {
    endpoint,
    model,
    prompt,
    n: n ?? 1,
    ...(endpoint === "images" ? { responseFormat: "b64_json" as const } : format === undefined ? {} : { responseFormat: format }),
    references,
    referenceCount: references.length,
    ...option("size", "size"),
    ...option("quality", "quality"),
    ...option("style", "style"),
    ...option("background", "background"),
    ...option("aspect_ratio", "aspectRatio"),
    ...option("resolution", "resolution"),
    ...option("output_format", "outputFormat"),
    ...(compression === undefined ? {} : { outputCompression: compression }),
    ...(user === undefined ? {} : { user })
  }
}

/** `POST /v1/images/generations`: the OpenAI-style call (`images.generate` of the SDKs). */
export const decodeImageGenerationRequest = (body: Body): Effect.Effect<ImageRequest, GatewayError> => {
  const result = decode(body, "generations")
  return result instanceof GatewayError ? Effect.fail(result) : Effect.succeed(result)
}

/** `POST /v1/images`: the gateway's own call, validated against the catalogue. */
export const decodeImageRequest = (body: Body): Effect.Effect<ImageRequest, GatewayError> => {
  const result = decode(body, "images")
  return result instanceof GatewayError ? Effect.fail(result) : Effect.succeed(result)
}
