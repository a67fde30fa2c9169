/** Reading and checking Anthropic's event streams as the gateway writes them. */

/** SSE text -> its events, `event:` line and parsed data. */
export const sseEvents = (text: string) =>
  text.split("\n\n").filter((f) => f !== "").map((frame) => {
    const lines = frame.split("\n")
    const event = lines.find((l) => l.startsWith("event: "))!.slice(7)
    return { event, data: JSON.parse(lines.find((l) => l.startsWith("data: "))!.slice(6)) as Record<string, any> }
  })

/** Anthropic's stream grammar: start, blocks opened and closed in order by index, delta, stop. */
export const grammarViolations = (list: ReadonlyArray<{ readonly event: string; readonly data: Record<string, any> }>): Array<string> => {
  const problems: Array<string> = []
  const flow = list.filter((e) => e.event !== "ping")
  if (flow[0]?.event !== "message_start") problems.push("does not open with message_start")
  const open = new Set<number>()
  let next = 0
  let delta = false
  for (const { event, data } of flow) {
    if (data["type"] !== event) problems.push(`event ${event} carries type ${data["type"]}`)
    if (event === "content_block_start") {
      if (data["index"] !== next) problems.push(`block ${data["index"]} opened, ${next} expected`)
      open.add(data["index"])
      next++
    }
    if (event === "content_block_delta" && !(data["index"] < next)) problems.push(`delta for unopened block ${data["index"]}`)
    if (event === "content_block_stop" && !open.delete(data["index"])) problems.push(`block ${data["index"]} closed twice or never opened`)
    if (event === "message_delta") {
      if (open.size > 0) problems.push("message_delta with blocks open")
      delta = true
    }
  }
  if (!delta) problems.push("no message_delta")
  if (flow.at(-1)?.event !== "message_stop") problems.push("does not end with message_stop")
  return problems
}
