import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import type { DailyUsageRow } from "../../src/Services/Usage/UsageDaily.ts"

type Row = DailyUsageRow

// The usage page's export, as the browser loads it (it touches the DOM only when a page renders).
const { usageCsv } = (await import(new URL("../../console/js/pages/usage.js", import.meta.url).href)) as {
  readonly usageCsv: (rows: ReadonlyArray<Row>) => string
}

/** RFC 4180 records, as a spreadsheet reads them. */
const parseCsv = (text: string): Array<Array<string>> => {
  const records: Array<Array<string>> = []
  let record: Array<string> = []
  let field = ""
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++
      else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ",") record.push(field), (field = "")
    else if (c === "\r" && text[i + 1] === "\n") record.push(field), records.push(record), (record = []), (field = ""), i++
    else field += c
  }
  return records
}

const row = (model: string | null): Row => ({
  day: "2030-01-10", model, requests: 2, prompt_tokens: 20, completion_tokens: 10, cached_tokens: 0, units: 0, cost_usd: 0.2, cost_nano_usd: "200000000"
})

describe("the usage CSV export", () => {
  it("writes a header and one record per row", () => {
    expect(parseCsv(usageCsv([row("gpt-test"), row(null)]))).toEqual([
      ["day", "model", "requests", "prompt_tokens", "completion_tokens", "cached_tokens", "units", "cost_usd", "cost_nano_usd"],
      ["2030-01-10", "gpt-test", "2", "20", "10", "0", "0", "0.2", "200000000"],
      ["2030-01-10", "", "2", "20", "10", "0", "0", "0.2", "200000000"]
    ])
  })

  it.prop("any model name reads back as written, a formula neutralised by a leading quote", { model: Schema.String }, ({ model }) => {
    const records = parseCsv(usageCsv([row(model)]))
    expect(records).toHaveLength(2)
    expect(records[1]?.[1]).toBe(/^[=+\-@]/.test(model) ? `'${model}` : model)
    expect(records[1]?.slice(2)).toEqual(["2", "20", "10", "0", "0", "0.2", "200000000"])
  })
})
