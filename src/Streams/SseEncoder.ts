const encoder = new TextEncoder()

/** `data: <json>` and a blank line (spec 6.1). */
export const encodeData = (value: unknown): Uint8Array => encoder.encode(`data: ${JSON.stringify(value)}\n\n`)

export const doneFrame: Uint8Array = encoder.encode("data: [DONE]\n\n")

/** An SSE comment: ignored by every client, keeps proxies from closing an idle connection. */
export const keepAliveFrame: Uint8Array = encoder.encode(": keep-alive\n\n")

/** The spec 6.6 frame that replaces the normal finish when the stream fails after it started. */
export const errorFrame = (message: string): Uint8Array =>
  encodeData({ error: { message, type: "stream_error" } })
