// `Buffer.from` takes small strings from Node's shared pool: several times cheaper per frame
// than `TextEncoder`, which allocates a new buffer for each.
const utf8 = (text: string): Uint8Array => Buffer.from(text, "utf8")

/** `data: <json>` and a blank line (spec 6.1). */
export const encodeData = (value: unknown): Uint8Array => utf8(`data: ${JSON.stringify(value)}\n\n`)

/** Several `data:` frames as one buffer: a batch of chunks is one write to the client. */
export const encodeDataBatch = (values: ReadonlyArray<unknown>): Uint8Array => {
  let text = ""
  for (const value of values) text += `data: ${JSON.stringify(value)}\n\n`
  return utf8(text)
}

export const doneFrame: Uint8Array = utf8("data: [DONE]\n\n")

/** An SSE comment: ignored by every client, keeps proxies from closing an idle connection. */
export const keepAliveFrame: Uint8Array = utf8(": keep-alive\n\n")

/** The spec 6.6 frame that replaces the normal finish when the stream fails after it started. */
export const errorFrame = (message: string): Uint8Array =>
  encodeData({ error: { message, type: "stream_error" } })
