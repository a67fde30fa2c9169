/**
 * Bytes of a fetched text document as a string: the charset of the Content-Type header, else
 * a byte-order mark, else (HTML) a `<meta charset>` in the first 2 KB, else UTF-8. An unknown
 * label falls back to UTF-8 rather than failing: a page with a wrong label is still mostly
 * readable, and a scrape should say what is there.
 */
const charsetOf = (contentType: string | null): string | undefined =>
  contentType === null ? undefined : /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(contentType)?.[1]

const bomCharset = (bytes: Uint8Array): string | undefined => {
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) return "utf-8"
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le"
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be"
  return undefined
}

const charsetAttribute = /charset\s*=\s*["']?([A-Za-z0-9_.:-]+)/gi
const encodingAttribute = /encoding\s*=\s*["']([A-Za-z0-9_.:-]+)/i

/**
 * `charset=` inside a `<meta ...>` tag, or `encoding=` in the `<?xml ...?>` declaration, of the
 * first 2 KB. Each attribute found is placed in its tag by looking back for `<`, rather than by a
 * pattern starting at every `<` (quadratic on many `<` and no `>`).
 */
const metaCharset = (bytes: Uint8Array): string | undefined => {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 2048))
  for (const match of head.matchAll(charsetAttribute)) {
    const open = head.lastIndexOf("<", match.index)
    const close = open === -1 ? -1 : head.indexOf(">", open)
    const inTag = open !== -1 && (close === -1 || close > match.index)
    if (inTag && head.slice(open + 1, open + 5).toLowerCase() === "meta" && match.index > open + 5) return match[1]
  }
  const declaration = head.indexOf("<?xml")
  if (declaration === -1) return undefined
  const end = head.indexOf(">", declaration)
  return encodingAttribute.exec(head.slice(declaration, end === -1 ? head.length : end))?.[1]
}

const decoderFor = (label: string | undefined): TextDecoder | undefined => {
  if (label === undefined) return undefined
  try {
    return new TextDecoder(label)
  } catch {
    return undefined
  }
}

export const decodeTextBody = (bytes: Uint8Array, contentType: string | null): string => {
  const decoder =
    decoderFor(bomCharset(bytes)) ?? decoderFor(charsetOf(contentType)) ?? decoderFor(metaCharset(bytes)) ?? new TextDecoder("utf-8")
  return decoder.decode(bytes)
}

/** The media type of a Content-Type header, lower case, without parameters. */
export const mediaTypeOf = (contentType: string | null): string | undefined => {
  const type = contentType?.split(";", 1)[0]?.trim().toLowerCase()
  return type === undefined || type === "" ? undefined : type
}

const htmlTypes = new Set(["text/html", "application/xhtml+xml"])

/** HTML by its declared type, or, when the type is missing or generic, by how the bytes start. */
export const looksLikeHtml = (bytes: Uint8Array, contentType: string | null): boolean => {
  const type = mediaTypeOf(contentType)
  if (type !== undefined && htmlTypes.has(type)) return true
  if (type !== undefined && type !== "application/octet-stream") return false
  const start = new TextDecoder("latin1").decode(bytes.subarray(0, 512)).replace(/^\uFEFF|^\xEF\xBB\xBF/, "").trimStart().toLowerCase()
  return start.startsWith("<!doctype html") || start.startsWith("<html") || (start.startsWith("<head") && start.includes("<body"))
}
