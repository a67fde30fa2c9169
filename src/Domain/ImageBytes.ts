/**
 * Image formats by their leading bytes, never by a name or a declared type. PNG, JPEG and WebP are
 * the formats every supported image provider takes as input and makes as output.
 * @see https://www.w3.org/TR/png-3/#5PNG-file-signature
 * @see https://developers.google.com/speed/webp/docs/riff_container
 */
export type ImageMime = "image/png" | "image/jpeg" | "image/webp"

const startsWith = (bytes: Uint8Array, prefix: ReadonlyArray<number>, at = 0): boolean =>
  bytes.length >= at + prefix.length && prefix.every((b, i) => bytes[at + i] === b)

export const sniffImageMime = (bytes: Uint8Array): ImageMime | undefined => {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return "image/png"
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return "image/jpeg"
  // "RIFF" <size> "WEBP"
  if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && startsWith(bytes, [0x57, 0x45, 0x42, 0x50], 8)) return "image/webp"
  return undefined
}

export const extensionOf = (mime: ImageMime): "png" | "jpg" | "webp" =>
  mime === "image/png" ? "png" : mime === "image/jpeg" ? "jpg" : "webp"

export const mimeOfExtension = (extension: string): ImageMime | undefined =>
  extension === "png" ? "image/png" : extension === "jpg" ? "image/jpeg" : extension === "webp" ? "image/webp" : undefined
