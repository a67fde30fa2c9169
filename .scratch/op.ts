import { OfficeParser } from "officeparser"
import { readFileSync } from "node:fs"
for (const [f, t] of [["sheet.xlsx", "xlsx"], ["sheet.ods", "ods"]] as const) {
  const ast = await OfficeParser.parseOffice(readFileSync(`/work/wt/h42a/test/fixtures/documents/${f}`), { fileType: t, ocr: false, extractAttachments: false, includeRawContent: false, ignoreComments: true, onWarning: () => undefined } as any)
  console.log(f, JSON.stringify(ast.content, (k, v) => (k === "formatting" || k === "style" ? undefined : v)).slice(0, 3000))
}
