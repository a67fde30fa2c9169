import CFB, { type CFB$Container } from "cfb"
import type { ExtractedContent } from "../../../Domain/ExtractedDocument.ts"
import { documentTypes } from "./DocumentTypes.ts"
import { fail } from "./ExtractionFailure.ts"
import { pagedText, tidy } from "./PagedText.ts"

/**
 * Legacy binary PowerPoint (MS-PPT). No maintained JavaScript library reads it, so this is
 * the minimum of the format needed for text: the "Current User" stream points at the newest
 * UserEditAtom; the chain of edits gives the persist directory (object id -> stream offset);
 * the document's SlideListWithText lists the slides in order, and each slide's text is in
 * TextCharsAtom (UTF-16) or TextBytesAtom (Latin-1) records, either in that list or inside
 * the slide's own drawing.
 */
const rt = {
  slide: 0x03ee,
  document: 0x03e8,
  slideListWithText: 0x0ff0,
  slidePersistAtom: 0x03f3,
  textHeaderAtom: 0x0f9f,
  textCharsAtom: 0x0fa0,
  textBytesAtom: 0x0fa8,
  userEditAtom: 0x0ff5,
  persistDirectoryAtom: 0x1772
} as const
const encryptedToken = 0xf3d1c4df
/** TextHeaderAtom text types that hold a slide title. */
const titleTypes = new Set([0, 6])

interface PptRecord {
  readonly type: number
  readonly instance: number
  readonly container: boolean
  readonly start: number
  readonly end: number
}

interface TextRun {
  readonly title: boolean
  readonly text: string
}

const recordAt = (buf: Buffer, offset: number, limit: number): PptRecord | undefined => {
  if (offset < 0 || offset + 8 > limit) return undefined
  const verInstance = buf.readUInt16LE(offset)
  const end = offset + 8 + buf.readUInt32LE(offset + 4)
  if (end > limit) return undefined
  return { type: buf.readUInt16LE(offset + 2), instance: verInstance >> 4, container: (verInstance & 0xf) === 0xf, start: offset + 8, end }
}

const children = (buf: Buffer, parent: { readonly start: number; readonly end: number }): Array<PptRecord> => {
  const out: Array<PptRecord> = []
  for (let at = parent.start, r = recordAt(buf, at, parent.end); r !== undefined; at = r.end, r = recordAt(buf, at, parent.end)) {
    out.push(r)
  }
  return out
}

const atomText = (buf: Buffer, r: PptRecord): string | undefined => {
  const raw =
    r.type === rt.textCharsAtom
      ? buf.toString("utf16le", r.start, r.end)
      : r.type === rt.textBytesAtom
        ? buf.toString("latin1", r.start, r.end)
        : undefined
  return raw?.replace(/[\r\u000b]/g, "\n")
}

/** Text runs in stream order, each marked as a title when its TextHeaderAtom says so. */
const textRuns = (buf: Buffer, records: ReadonlyArray<PptRecord>, out: Array<TextRun> = [], state = { title: false }): Array<TextRun> => {
  for (const r of records) {
    if (r.type === rt.textHeaderAtom && r.end - r.start >= 4) state.title = titleTypes.has(buf.readUInt32LE(r.start))
    const text = atomText(buf, r)
    if (text !== undefined) out.push({ title: state.title, text })
    if (r.container) textRuns(buf, children(buf, r), out, state)
  }
  return out
}

/** persist id -> offset, newest edit first so later saves override earlier ones. */
const persistDirectory = (buf: Buffer, currentEdit: number) => {
  const offsets = new Map<number, number>()
  let documentRef: number | undefined
  const seen = new Set<number>()
  for (let at = currentEdit; at > 0 && !seen.has(at); ) {
    seen.add(at)
    const edit = recordAt(buf, at, buf.length)
    if (edit?.type !== rt.userEditAtom || edit.end - edit.start < 20) break
    documentRef ??= buf.readUInt32LE(edit.start + 16)
    const dir = recordAt(buf, buf.readUInt32LE(edit.start + 12), buf.length)
    if (dir?.type === rt.persistDirectoryAtom) {
      for (let p = dir.start; p + 4 <= dir.end; ) {
        const entry = buf.readUInt32LE(p)
        const first = entry & 0xfffff
        const count = entry >>> 20
        p += 4
        for (let k = 0; k < count && p + 4 <= dir.end; k++, p += 4) {
          if (!offsets.has(first + k)) offsets.set(first + k, buf.readUInt32LE(p))
        }
      }
    }
    at = buf.readUInt32LE(edit.start + 8)
  }
  return { offsets, documentRef }
}

/** Slides in presentation order through the persist directory; undefined when that path is broken. */
const slidesByDirectory = (buf: Buffer, currentEdit: number): Array<Array<TextRun>> | undefined => {
  const { offsets, documentRef } = persistDirectory(buf, currentEdit)
  const document = recordAt(buf, documentRef === undefined ? -1 : (offsets.get(documentRef) ?? -1), buf.length)
  if (document?.type !== rt.document) return undefined
  const list = children(buf, document).find((r) => r.type === rt.slideListWithText && r.instance === 0)
  if (list === undefined) return []
  const slides: Array<{ slideRef: number; listed: Array<PptRecord> }> = []
  for (const r of children(buf, list)) {
    if (r.type === rt.slidePersistAtom && r.end - r.start >= 4) slides.push({ slideRef: buf.readUInt32LE(r.start), listed: [] })
    else slides.at(-1)?.listed.push(r)
  }
  return slides.map(({ slideRef, listed }) => {
    const slide = recordAt(buf, offsets.get(slideRef) ?? -1, buf.length)
    const drawn = slide?.type === rt.slide ? textRuns(buf, children(buf, slide)) : []
    return [...textRuns(buf, listed), ...drawn]
  })
}

/** Fallback for files whose edit chain is damaged: every top-level slide record, in stream order. */
const slidesInStreamOrder = (buf: Buffer): Array<Array<TextRun>> =>
  children(buf, { start: 0, end: buf.length })
    .filter((r) => r.type === rt.slide)
    .map((slide) => textRuns(buf, children(buf, slide)))

const slideText = (runs: ReadonlyArray<TextRun>): string => {
  const title = runs.find((r) => r.title && r.text.trim() !== "")
  const ordered = title === undefined ? runs : [title, ...runs.filter((r) => r !== title)]
  return tidy(ordered.map((r) => r.text).join("\n"))
}

const streamBytes = (container: CFB$Container, name: string): Buffer | undefined => {
  const entry = CFB.find(container, name)
  return entry === null ? undefined : Buffer.from(entry.content)
}

export const pptText = (container: CFB$Container): ExtractedContent => {
  const stream = streamBytes(container, "PowerPoint Document")
  if (stream === undefined) return fail("corrupt", "the PPT has no PowerPoint Document stream; it is damaged")
  const user = streamBytes(container, "Current User")
  const token = user !== undefined && user.length >= 20 ? user.readUInt32LE(12) : undefined
  if (token === encryptedToken) {
    return fail("unsupported", "the PPT is encrypted (password-protected); remove the password and upload it again")
  }
  const currentEdit = user !== undefined && user.length >= 20 ? user.readUInt32LE(16) : 0
  const slides = slidesByDirectory(stream, currentEdit) ?? slidesInStreamOrder(stream)
  const pageTexts = slides.map(slideText)
  return {
    format: "ppt",
    mimeType: documentTypes.ppt.mimeType,
    text: pagedText("Slide", pageTexts),
    pages: pageTexts.length,
    pageTexts,
    scanned: false,
    scannedPages: []
  }
}
