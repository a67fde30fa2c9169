/** Splits an SSE body into its frames, the way a strict client reads it. */
export interface ParsedSse {
  readonly data: ReadonlyArray<string>
  readonly comments: number
  /** JSON payloads of every data frame before `[DONE]`. */
  readonly chunks: ReadonlyArray<Record<string, unknown>>
  readonly done: boolean
}

export const parseSse = (text: string): ParsedSse => {
  const data: Array<string> = []
  let comments = 0
  for (const frame of text.split("\n\n")) {
    if (frame === "") continue
    if (frame.startsWith(":")) {
      comments++
      continue
    }
    const lines = frame.split("\n")
    data.push(lines.filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n"))
  }
  const doneAt = data.indexOf("[DONE]")
  const chunks = (doneAt === -1 ? data : data.slice(0, doneAt)).map((d) => JSON.parse(d) as Record<string, unknown>)
  return { data, comments, chunks, done: doneAt === data.length - 1 && doneAt !== -1 }
}
