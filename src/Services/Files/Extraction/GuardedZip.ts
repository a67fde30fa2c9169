import { inflateRawSync } from "node:zlib"
import { ExtractionFailure, fail } from "./ExtractionFailure.ts"
import { storedEntry, writeZip } from "./ZipWriter.ts"

/**
 * The one place a ZIP-based document (DOCX, XLSX, PPTX, ODT, ODS, ODP, iWork) is inflated.
 * Every part is inflated here with a running byte cap over the whole archive and a ratio cap per
 * part, before any parser sees it; parsers then get an archive of stored parts (`guardedZip`),
 * so they inflate nothing themselves. A 1 MB DOCX that declares 6 GB stops at the cap.
 */
export interface ZipLimits {
  /** Bytes all inflated parts may add up to. */
  readonly maxBytes: number
  /** How many times its packed size one part may inflate to, past its first MiB. */
  readonly maxRatio: number
  readonly maxEntries: number
}

export interface ZipPart {
  readonly name: string
  readonly bytes: Uint8Array
}

/** Inflated below this, a part is not judged by its ratio: small XML parts compress 50x and more. */
const ratioGrace = 1024 * 1024

/**
 * Parts that hold text (XML, relationships, the ODF mimetype, an iWork index or preview PDF).
 * Everything else (images, fonts, embedded objects) is kept by name with no content: no reader
 * here turns pictures into text, so they are never inflated.
 */
const holdsText = (name: string): boolean => /\.(xml|rels|apxl|pdf)$/i.test(name) || name === "mimetype"

const u16 = (b: Uint8Array, at: number) => b[at]! | (b[at + 1]! << 8)
const u32 = (b: Uint8Array, at: number) => (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 0x1000000

const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`

const endOfCentralDirectory = (zip: Uint8Array): number => {
  for (let at = zip.length - 22; at >= Math.max(0, zip.length - 22 - 0xffff); at--) {
    if (u32(zip, at) === 0x06054b50) return at
  }
  return -1
}

/** Every part of `zip` inflated, within `limits`; throws an `ExtractionFailure` naming the limit. */
export const unzipGuarded = (zip: Uint8Array, limits: ZipLimits, what: string): Array<ZipPart> => {
  const damaged = (detail: string): never => {
    throw new ExtractionFailure("corrupt", `the ${what} could not be read; it is damaged or not a valid ${what}`, detail)
  }
  const end = endOfCentralDirectory(zip)
  if (end === -1) return damaged("no end of central directory")
  const count = u16(zip, end + 10)
  const directory = u32(zip, end + 16)
  if (count === 0xffff || directory === 0xffffffff) {
    return fail("too_complex", `the ${what} is a ZIP64 archive (over 4 GB or 65,535 parts), which extraction does not read`)
  }
  if (count > limits.maxEntries) return fail("too_complex", `the ${what} has ${count} parts; extraction reads at most ${limits.maxEntries}`)
  const parts: Array<ZipPart> = []
  const seen = new Set<string>()
  let total = 0
  for (let i = 0, at = directory; i < count; i++) {
    if (at + 46 > zip.length || u32(zip, at) !== 0x02014b50) return damaged(`central directory entry ${i} out of place`)
    const flags = u16(zip, at + 8)
    const method = u16(zip, at + 10)
    const packed = u32(zip, at + 20)
    const nameLength = u16(zip, at + 28)
    const local = u32(zip, at + 42)
    const name = Buffer.from(zip.buffer, zip.byteOffset + at + 46, Math.min(nameLength, zip.length - at - 46)).toString(flags & 0x800 ? "utf8" : "latin1")
    at += 46 + nameLength + u16(zip, at + 30) + u16(zip, at + 32)
    // A name listed twice would let two parsers read different parts: the first one counts.
    if (name.endsWith("/") || seen.has(name)) continue
    seen.add(name)
    if (flags & 0x1) return fail("unsupported", `the ${what} is encrypted (password-protected); remove the password and upload it again`)
    if (local + 30 > zip.length || u32(zip, local) !== 0x04034b50) return damaged(`local header of ${name} out of place`)
    const start = local + 30 + u16(zip, local + 26) + u16(zip, local + 28)
    if (start + packed > zip.length) return damaged(`${name} runs past the end of the file`)
    if (!holdsText(name)) {
      parts.push({ name, bytes: new Uint8Array(0) })
      continue
    }
    const data = zip.subarray(start, start + packed)
    const left = limits.maxBytes - total
    const byRatio = Math.max(ratioGrace, packed * limits.maxRatio)
    let bytes: Uint8Array
    if (method === 0) {
      bytes = data
      if (bytes.length > left) return tooLarge(what, limits)
    } else if (method === 8) {
      try {
        bytes = inflateRawSync(data, { maxOutputLength: Math.max(1, Math.min(left, byRatio)) })
      } catch (cause) {
        if ((cause as { readonly code?: unknown }).code !== "ERR_BUFFER_TOO_LARGE") return damaged(`${name}: ${String(cause)}`)
        if (left <= byRatio) return tooLarge(what, limits)
        return fail("too_complex", `the ${what} holds a part (${name}) that inflates to more than ${limits.maxRatio} times its packed size (files.extraction.max_zip_ratio), as ZIP bombs do`)
      }
    } else {
      return fail("unsupported", `the ${what} uses ZIP compression method ${method}, which extraction does not read`)
    }
    total += bytes.length
    parts.push({ name, bytes })
  }
  return parts
}

const tooLarge = (what: string, limits: ZipLimits): never =>
  fail("too_complex", `the ${what} expands to more than ${mb(limits.maxBytes)} (files.extraction.max_unzipped_mb)`)

/** `zip` rewritten with every part stored as `unzipGuarded` inflated it: what parsers are given. */
export const guardedZip = (zip: Uint8Array, limits: ZipLimits, what: string): Uint8Array =>
  writeZip(unzipGuarded(zip, limits, what).map((part) => storedEntry(part.name, part.bytes)))
