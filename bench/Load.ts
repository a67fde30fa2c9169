import autocannon, { type Client } from "autocannon"

export interface LoadOptions {
  readonly url: string
  readonly body: string
  readonly headers: Record<string, string>
  readonly connections: number
  readonly durationS: number
  /** Record the time to the first body byte and to the first text content of every response (streams). */
  readonly ttfb: boolean
  readonly verify: (body: string) => boolean
  /** Keep per-request latencies (off for the soak, where they would pile up). */
  readonly latencies?: boolean
}

export interface LoadResult {
  readonly completed: number
  readonly errors: number
  readonly seconds: number
  readonly rps: number
  readonly p50: number
  readonly p99: number
  readonly ttfbP50: number | undefined
  readonly ttfbP99: number | undefined
  /** Time to the first chunk with text content: what a reader of the stream waits for. */
  readonly ttfcP50: number | undefined
}

// A chat delta's `"content":"x`, a Messages `text_delta`'s `"text":"x` (its block start's `"text":""` does not count)
// or a Responses `response.output_text.delta`'s `"delta":"x` (chat's and Messages' deltas are objects).
const contentStart = /"(?:content|text|delta)":"(?:[^"\\]|\\.)/
// Longer than the marker and the character after it.
const keptTail = 16

/**
 * Finds the first chat chunk delta with non-empty text content in a response's body reads,
 * wherever a read cuts it (the end of the previous read is kept in front). The role chunk's
 * `"content":""` does not count; a JSON writer puts no space after the colon.
 */
export class FirstContent {
  private tail = ""
  reset() {
    this.tail = ""
  }
  /** Whether the body read so far, up to and including `read`, holds text content. */
  seen(read: string): boolean {
    const text = this.tail + read
    if (contentStart.test(text)) return true
    this.tail = text.slice(-keptTail)
    return false
  }
}

/** Growable store of float samples (ms). */
class Samples {
  private data = new Float64Array(1 << 16)
  length = 0
  push(value: number) {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2)
      bigger.set(this.data)
      this.data = bigger
    }
    this.data[this.length++] = value
  }
  percentile(p: number): number {
    if (this.length === 0) return Number.NaN
    const sorted = this.data.slice(0, this.length).sort()
    return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!
  }
}

/**
 * One autocannon run. Latencies are kept at sub-millisecond precision (autocannon's own
 * histogram rounds to whole milliseconds), and for streams the first body byte and the first
 * text content of every response are timed from the moment its request was written.
 */
export const runLoad = (options: LoadOptions): Promise<LoadResult> =>
  new Promise((resolve, reject) => {
    const latencies = new Samples()
    const ttfbs = new Samples()
    const ttfcs = new Samples()
    let completed = 0
    const keep = options.latencies !== false
    const setupClient = (client: Client) => {
      if (!options.ttfb || !keep) return
      let sentAt = 0n
      let waiting = false
      let waitingContent = false
      const content = new FirstContent()
      client.on("request", () => {
        sentAt = process.hrtime.bigint()
        waiting = true
        waitingContent = true
        content.reset()
      })
      client.on("body", (body: Buffer) => {
        if (!waitingContent) return
        const now = process.hrtime.bigint()
        if (waiting) {
          waiting = false
          ttfbs.push(Number(now - sentAt) / 1e6)
        }
        if (content.seen(body.toString("latin1"))) {
          waitingContent = false
          ttfcs.push(Number(now - sentAt) / 1e6)
        }
      })
    }
    const started = performance.now()
    const instance = autocannon(
      {
        url: options.url,
        method: "POST",
        body: options.body,
        headers: options.headers,
        connections: options.connections,
        duration: options.durationS,
        timeout: 30,
        setupClient,
        verifyBody: options.verify
      },
      (error, result) => {
        if (error !== null) return reject(error)
        const seconds = (performance.now() - started) / 1000
        resolve({
          completed,
          errors: result.errors + result.non2xx + result.mismatches,
          seconds,
          rps: completed / seconds,
          p50: latencies.percentile(50),
          p99: latencies.percentile(99),
          ttfbP50: options.ttfb ? ttfbs.percentile(50) : undefined,
          ttfbP99: options.ttfb ? ttfbs.percentile(99) : undefined,
          ttfcP50: options.ttfb ? ttfcs.percentile(50) : undefined
        })
      }
    )
    instance.on("response", (_client: Client, status: number, _bytes: number, responseTime: number) => {
      if (status >= 200 && status < 300) {
        completed++
        if (keep) latencies.push(responseTime)
      }
    })
  })
