import type { DocumentFormat } from "../../../Domain/ExtractedDocument.ts"

/** Binary document formats: everything but `text`. */
export type BinaryFormat = Exclude<DocumentFormat, "text">

export interface DocumentType {
  readonly mimeType: string
  /** Used in messages: "the content is a PNG image, not <label>". */
  readonly label: string
  /** The short name in "the <name> is encrypted". */
  readonly name: string
  readonly extensions: ReadonlyArray<string>
  /** Other MIME types clients send for it. */
  readonly aliases: ReadonlyArray<string>
  /** Stored as a ZIP archive of parts. */
  readonly zipped: boolean
}

const type = (
  mimeType: string,
  name: string,
  label: string,
  extensions: ReadonlyArray<string>,
  zipped: boolean,
  aliases: ReadonlyArray<string> = []
): DocumentType => ({ mimeType, name, label, extensions, zipped, aliases })

const ooxml = "application/vnd.openxmlformats-officedocument"

export const documentTypes: Readonly<Record<BinaryFormat, DocumentType>> = {
  pdf: type("application/pdf", "PDF", "a PDF", ["pdf"], false, ["application/x-pdf"]),
  docx: type(`${ooxml}.wordprocessingml.document`, "DOCX", "a Word document (DOCX)", ["docx", "docm", "dotx", "dotm"], true, [
    "application/vnd.ms-word.document.macroenabled.12"
  ]),
  doc: type("application/msword", "DOC", "a Word 97-2003 document (DOC)", ["doc", "dot"], false),
  odt: type("application/vnd.oasis.opendocument.text", "ODT", "an OpenDocument text (ODT)", ["odt", "ott"], true),
  rtf: type("application/rtf", "RTF document", "an RTF document", ["rtf"], false, ["text/rtf"]),
  pptx: type(`${ooxml}.presentationml.presentation`, "PPTX", "a PowerPoint presentation (PPTX)", ["pptx", "pptm", "ppsx", "ppsm", "potx", "potm"], true, [
    "application/vnd.ms-powerpoint.presentation.macroenabled.12"
  ]),
  ppt: type("application/vnd.ms-powerpoint", "PPT", "a PowerPoint 97-2003 presentation (PPT)", ["ppt", "pps", "pot"], false),
  odp: type("application/vnd.oasis.opendocument.presentation", "ODP", "an OpenDocument presentation (ODP)", ["odp", "otp"], true),
  xlsx: type(`${ooxml}.spreadsheetml.sheet`, "XLSX", "an Excel workbook (XLSX)", ["xlsx", "xlsm", "xltx", "xltm"], true, [
    "application/vnd.ms-excel.sheet.macroenabled.12"
  ]),
  xls: type("application/vnd.ms-excel", "XLS", "an Excel 97-2003 workbook (XLS)", ["xls", "xlt"], false),
  ods: type("application/vnd.oasis.opendocument.spreadsheet", "ODS", "an OpenDocument spreadsheet (ODS)", ["ods", "ots"], true),
  pages: type("application/vnd.apple.pages", "Pages document", "a Pages document", ["pages"], true, [
    "application/x-iwork-pages-sffpages"
  ]),
  key: type("application/vnd.apple.keynote", "Keynote presentation", "a Keynote presentation", ["key", "keynote"], true, [
    "application/x-iwork-keynote-sffkey"
  ]),
  numbers: type("application/vnd.apple.numbers", "Numbers spreadsheet", "a Numbers spreadsheet", ["numbers"], true, [
    "application/x-iwork-numbers-sffnumbers"
  ])
}

export const binaryFormats = Object.keys(documentTypes) as ReadonlyArray<BinaryFormat>
