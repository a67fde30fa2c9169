import type { ExtractedContent } from "../../../Domain/ExtractedDocument.ts"
import type { BinaryFormat } from "./DocumentTypes.ts"
import { ExtractionFailure, type FailureInfo } from "./ExtractionFailure.ts"
import type { ExtractionLimits } from "./ExtractionLimits.ts"

/**
 * The messages between the extractor and its worker threads, and the dispatch the worker
 * runs. Readers are imported on first use, so a worker only loads the libraries of the
 * formats it has actually met.
 */
export type ExtractionTask =
  | { readonly _tag: "Extract"; readonly format: BinaryFormat | "ole"; readonly bytes: Uint8Array; readonly limits: ExtractionLimits }
  | { readonly _tag: "Render"; readonly bytes: Uint8Array; readonly maxPages: number }
  /**
   * Any other parse of untrusted content (a web page, a sitemap): `module` (a file URL of the
   * gateway's own code) exports `run(input)`, which returns a structured-clone-safe value and
   * throws an `ExtractionFailure` for what is the content's fault.
   */
  | { readonly _tag: "Job"; readonly module: string; readonly input: unknown }

export type ExtractionOutcome =
  | { readonly _tag: "Extracted"; readonly content: ExtractedContent }
  | { readonly _tag: "Rendered"; readonly images: ReadonlyArray<Uint8Array> }
  | { readonly _tag: "Computed"; readonly value: unknown }
  /** The file's fault: reported to the client as a 400. */
  | { readonly _tag: "Failed"; readonly failure: FailureInfo; readonly detail?: string | undefined }
  /** The gateway's fault (a reader module failed to load): a defect, never blamed on the file. */
  | { readonly _tag: "Broken"; readonly detail: string }

export interface WorkerRequest {
  readonly id: number
  readonly task: ExtractionTask
}

export type WorkerMessage =
  /** Sent once the worker listens, so a worker that dies earlier is known to be broken, not fed a bad file. */
  | { readonly _tag: "Ready" }
  | { readonly _tag: "Done"; readonly id: number; readonly outcome: ExtractionOutcome }

type Run = () => Promise<ExtractionOutcome>

const extracted = (content: Promise<ExtractedContent>): Promise<ExtractionOutcome> =>
  content.then((c) => ({ _tag: "Extracted", content: c }))

/** Loads the reader a task needs; a failure here is the installation's, not the file's. */
const readerFor = async (task: ExtractionTask): Promise<Run> => {
  if (task._tag === "Job") {
    const job = (await import(task.module)) as { readonly run: (input: unknown) => Promise<unknown> | unknown }
    return async () => ({ _tag: "Computed", value: await job.run(task.input) })
  }
  const { bytes } = task
  if (task._tag === "Render") {
    const { renderPdfPages } = await import("./PdfPages.ts")
    return async () => ({ _tag: "Rendered", images: await renderPdfPages(bytes, task.maxPages) })
  }
  const { format, limits } = task
  switch (format) {
    case "pdf": {
      const { pdfText } = await import("./PdfText.ts")
      return () => extracted(pdfText(bytes, limits.maxPages))
    }
    case "docx":
    case "odt":
    case "rtf":
    case "pptx":
    case "odp": {
      const { officeText } = await import("./OfficeText.ts")
      return () => extracted(officeText(format, bytes, limits))
    }
    // DOC, XLS and PPT share one container; what is inside decides, not the claimed name.
    case "doc":
    case "xls":
    case "ppt":
    case "ole": {
      const { oleText } = await import("./OleText.ts")
      return () => extracted(oleText(bytes, limits))
    }
    case "xlsx":
    case "ods": {
      const { spreadsheetText } = await import("./SpreadsheetText.ts")
      return () => extracted(spreadsheetText(format, bytes, limits))
    }
    case "pages":
    case "key":
    case "numbers": {
      const { iworkText } = await import("./IworkText.ts")
      return () => extracted(iworkText(format, bytes, limits))
    }
  }
}

const describeCause = (cause: unknown): string => (cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause))

/** Never rejects: every problem becomes a `Failed` or `Broken` outcome the caller can report. */
export const runTask = async (task: ExtractionTask): Promise<ExtractionOutcome> => {
  let run: Run
  try {
    run = await readerFor(task)
  } catch (cause) {
    return { _tag: "Broken", detail: describeCause(cause) }
  }
  try {
    return await run()
  } catch (cause) {
    if (cause instanceof ExtractionFailure) return { _tag: "Failed", failure: cause.info, detail: cause.detail }
    // The stack or an array ran out: content nested or repeated past what a reader can hold.
    if (cause instanceof RangeError) {
      return { _tag: "Failed", failure: { kind: "too_complex", reason: "the content is nested too deeply or too large to read" }, detail: describeCause(cause) }
    }
    // Glue code tripping over an input no reader anticipated: still the file's fault, not a crash.
    return {
      _tag: "Failed",
      failure: { kind: "corrupt", reason: "the file could not be read; it is damaged or not a valid document" },
      detail: describeCause(cause)
    }
  }
}
