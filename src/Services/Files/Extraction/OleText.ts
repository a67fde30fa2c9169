import CFB, { type CFB$Container } from "cfb"
import type { ExtractedContent } from "../../../Domain/ExtractedDocument.ts"
import type { ExtractionLimits } from "./ExtractionLimits.ts"
import { fail, guard } from "./ExtractionFailure.ts"
import { officeText } from "./OfficeText.ts"
import { pptText } from "./PptText.ts"
import { spreadsheetText } from "./SpreadsheetText.ts"

const removePassword = "remove the password and upload it again"

const stream = (container: CFB$Container, name: string): Buffer | undefined => {
  const entry = CFB.find(container, name)
  return entry === null ? undefined : Buffer.from(entry.content)
}

/** FibBase.fEncrypted (MS-DOC 2.5.2): bit 8 of the flags word at offset 0x0A. */
const wordIsEncrypted = (wordDocument: Buffer): boolean =>
  wordDocument.length >= 12 && (wordDocument.readUInt16LE(0x0a) & 0x0100) !== 0

/** A FILEPASS record (0x002F) in the workbook globals, which end at the first EOF record (0x000A). */
const workbookIsEncrypted = (workbook: Buffer): boolean => {
  for (let at = 0; at + 4 <= workbook.length; at += 4 + workbook.readUInt16LE(at + 2)) {
    const type = workbook.readUInt16LE(at)
    if (type === 0x002f) return true
    if (type === 0x000a) return false
  }
  return false
}

/**
 * OLE compound files: Word 97-2003, Excel 97-2003, PowerPoint 97-2003, and Office 2007+
 * files after password protection (which wraps the zip in an encrypted OLE container).
 * The streams inside say which one it is, whatever the file name claims.
 */
export const oleText = async (bytes: Uint8Array, limits: ExtractionLimits): Promise<ExtractedContent> => {
  const container = await guard("Office file", () => CFB.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), { type: "buffer" }))
  if (stream(container, "EncryptedPackage") !== undefined) {
    return fail("unsupported", `the Office document is encrypted (password-protected); ${removePassword}`)
  }
  const wordDocument = stream(container, "WordDocument")
  if (wordDocument !== undefined) {
    if (wordIsEncrypted(wordDocument)) return fail("unsupported", `the DOC is encrypted (password-protected); ${removePassword}`)
    return officeText("doc", bytes, limits)
  }
  const workbook = stream(container, "Workbook") ?? stream(container, "Book")
  if (workbook !== undefined) {
    if (workbookIsEncrypted(workbook)) return fail("unsupported", `the XLS is encrypted (password-protected); ${removePassword}`)
    return spreadsheetText("xls", bytes, limits)
  }
  if (stream(container, "PowerPoint Document") !== undefined) return guard("PPT", () => pptText(container))
  return fail("unsupported", "the content is an OLE compound file that is not a Word, Excel or PowerPoint document")
}
