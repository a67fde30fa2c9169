/** A worker job for tests: what a parser running in an extraction worker can see and change. */
export const run = () => {
  const polluted: Record<string, unknown> = JSON.parse('{"__proto__": {"polluted": true}}')
  let prototypeWritable = true
  try {
    ;(Object.prototype as Record<string, unknown>)["polluted"] = true
  } catch {
    prototypeWritable = false
  }
  // Ordinary code that assigns over an inherited property keeps working.
  function Base() {}
  Base.prototype.constructor = Base
  const own: Record<string, unknown> = {}
  own["toString"] = () => "mine"
  return {
    envKeys: Object.keys(process.env).length,
    prototypeWritable,
    inherited: ({} as Record<string, unknown>)["polluted"] === true,
    parsedOwnProto: Object.keys(polluted).includes("__proto__"),
    ownToString: String(own)
  }
}
