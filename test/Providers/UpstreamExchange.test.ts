import type { Dispatcher } from "undici"
import { describe, expect, it } from "vitest"
import { UpstreamExchange } from "../../src/Providers/UpstreamExchange.ts"

const timeouts = { first_byte_ms: 60_000, idle_ms: 60_000, total_ms: 60_000 }

const controller = (): Dispatcher.DispatchController =>
  ({ aborted: false, paused: false, reason: null, abort: () => {}, pause: () => {}, resume: () => {} }) as unknown as Dispatcher.DispatchController

const chunk = (text: string) => Buffer.from(text, "utf8")

/** Lets every microtask queued so far run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve))

/** A streamed exchange whose 200 head is in and delivered. */
const started = async () => {
  const exchange = new UpstreamExchange("test", timeouts, true)
  const control = controller()
  exchange.onRequestStart(control)
  exchange.onResponseStart(control, 200, {})
  await settle()
  return { exchange, control }
}

describe("UpstreamExchange", () => {
  it("wakes whoever waits for the head once, after everything the same read brought", async () => {
    const exchange = new UpstreamExchange("test", timeouts, true)
    const seen: Array<number> = []
    exchange.onHead = () => seen.push(exchange.chunks.length)
    const control = controller()
    exchange.onRequestStart(control)
    // As undici reports one network read: the head, then each HTTP chunk in it, in one go.
    exchange.onResponseStart(control, 200, { "content-type": "text/event-stream" })
    exchange.onResponseData(control, chunk("data: role\n\n"))
    exchange.onResponseData(control, chunk("data: first content\n\n"))
    expect(seen).toEqual([])
    await settle()
    expect(seen).toEqual([2])
    expect(exchange.status).toBe(200)
    exchange.abort()
  })

  it("wakes a waiting reader once per read, with every chunk of it", async () => {
    const { exchange, control } = await started()
    const batches: Array<Array<string>> = []
    const wait = () => {
      exchange.onChange = () => {
        batches.push(exchange.take().map(String))
        wait()
      }
    }
    wait()
    exchange.onResponseData(control, chunk("a"))
    exchange.onResponseData(control, chunk("b"))
    exchange.onResponseData(control, chunk("c"))
    await settle()
    exchange.onResponseData(control, chunk("d"))
    exchange.onResponseEnd()
    await settle()
    expect(batches).toEqual([["a", "b", "c"], ["d"]])
    expect(exchange.ended).toBe(true)
  })

  it("tells a waiting reader of a failure, and nobody once the reader stopped waiting", async () => {
    const { exchange, control } = await started()
    let woken = 0
    exchange.onChange = () => woken++
    exchange.onResponseError(control, Object.assign(new Error("reset"), { code: "ECONNRESET" }))
    exchange.onChange = undefined
    await settle()
    expect(woken).toBe(0)
    expect(exchange.failure?.reason.message).toContain("ECONNRESET")

    const { exchange: second, control: secondControl } = await started()
    second.onChange = () => woken++
    second.onResponseError(secondControl, Object.assign(new Error("reset"), { code: "ECONNRESET" }))
    await settle()
    expect(woken).toBe(1)
  })
})
