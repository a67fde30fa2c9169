/**
 * The name a fetched document goes by: `Content-Disposition` when the server gives one
 * (RFC 6266, preferring the RFC 8187 `filename*` form), otherwise the last URL path segment.
 * Names are reduced to a bare file name, because callers use them for extension detection
 * and display, never as paths.
 */

const maxLength = 255

const clean = (name: string): string | null => {
  const base = (name.split(/[/\\]/).pop() ?? "").replace(/[\u0000-\u001f\u007f]/g, "").trim()
  if (base === "" || base === "." || base === "..") return null
  return base.length > maxLength ? base.slice(0, maxLength) : base
}

/** `name=value` pairs after the disposition type; values are tokens or quoted strings. */
const parameters = (header: string): Map<string, string> => {
  const out = new Map<string, string>()
  let i = header.indexOf(";")
  if (i === -1) return out
  while (i < header.length) {
    i++ // past ';'
    while (header[i] === " " || header[i] === "\t") i++
    const eq = header.indexOf("=", i)
    if (eq === -1) break
    const name = header.slice(i, eq).trim().toLowerCase()
    i = eq + 1
    while (header[i] === " " || header[i] === "\t") i++
    let value = ""
    if (header[i] === '"') {
      i++
      while (i < header.length && header[i] !== '"') {
        if (header[i] === "\\" && i + 1 < header.length) i++
        value += header[i]
        i++
      }
      i = header.indexOf(";", i)
      if (i === -1) i = header.length
    } else {
      const end = header.indexOf(";", i)
      value = header.slice(i, end === -1 ? header.length : end).trim()
      i = end === -1 ? header.length : end
    }
    if (name !== "" && !out.has(name)) out.set(name, value)
  }
  return out
}

/** `charset'language'percent-encoded`; UTF-8 and ISO-8859-1 are the charsets RFC 8187 requires. */
const extendedValue = (value: string): string | null => {
  const match = /^([A-Za-z0-9!#$%&+^_`{}~-]+)'[^']*'(.*)$/.exec(value)
  if (match === null) return null
  const charset = match[1]!.toLowerCase()
  const encoded = match[2]!
  try {
    if (charset === "utf-8") return decodeURIComponent(encoded)
    if (charset === "iso-8859-1") {
      return encoded.replace(/%([0-9A-Fa-f]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    }
  } catch {
    return null
  }
  return null
}

export const filenameFromContentDisposition = (header: string | undefined): string | null => {
  if (header === undefined) return null
  const params = parameters(header)
  const extended = params.get("filename*")
  const fromExtended = extended === undefined ? null : extendedValue(extended)
  if (fromExtended !== null) return clean(fromExtended)
  const plain = params.get("filename")
  return plain === undefined ? null : clean(plain)
}

export const filenameFromUrl = (url: URL): string | null => {
  const segment = url.pathname.split("/").pop() ?? ""
  let decoded = segment
  try {
    decoded = decodeURIComponent(segment)
  } catch {
    // Keep the raw segment: a stray '%' still names the file.
  }
  return clean(decoded)
}

export const filenameOf = (contentDisposition: string | undefined, url: URL): string | null =>
  filenameFromContentDisposition(contentDisposition) ?? filenameFromUrl(url)
