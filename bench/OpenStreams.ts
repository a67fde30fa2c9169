import { Agent, request } from "node:http"
import { childrenRssMb, rssMb } from "./Processes.ts"

export interface OpenStreamsResult {
  readonly opened: number
  readonly rssBeforeMb: number
  readonly rssOpenMb: number
  /** Child processes (the embedded storage process), reported apart from the process itself. */
  readonly childrenRssMb: number
  readonly completed: number
  readonly errors: number
}

interface OpenStream {
  readonly firstData: Promise<void>
  readonly finished: Promise<boolean>
}

const open = (agent: Agent, port: number, path: string, headers: Record<string, string>, body: string): OpenStream => {
  let onFirst: () => void = () => {}
  let onFail: (e: Error) => void = () => {}
  const firstData = new Promise<void>((resolve, reject) => {
    onFirst = resolve
    onFail = reject
  })
  const finished = new Promise<boolean>((resolve) => {
    const req = request({ host: "127.0.0.1", port, path, method: "POST", headers, agent }, (res) => {
      let text = ""
      res.setEncoding("utf8")
      res.on("data", (piece: string) => {
        if (text === "") onFirst()
        text += piece
      })
      res.on("end", () => resolve(res.statusCode === 200 && text.endsWith("data: [DONE]\n\n") && !text.includes('"stream_error"')))
      res.on("error", () => resolve(false))
    })
    req.on("error", (error) => {
      onFail(error)
      resolve(false)
    })
    req.end(body)
  })
  return { firstData, finished }
}

/**
 * Opens `count` streams that the fake upstream holds after three chunks, waits until every
 * one has received data, reads the RSS of `pid`, then lets the upstream finish them all and
 * checks that each ended normally with [DONE].
 */
export const holdOpenStreams = async (options: {
  readonly pid: number
  readonly port: number
  readonly path: string
  readonly headers: Record<string, string>
  readonly body: string
  readonly count: number
  readonly upstreamPort: number
  /** Heap snapshots before and with the streams open (the process runs with --heapsnapshot-signal=SIGUSR2). */
  readonly heapSnapshots?: boolean
}): Promise<OpenStreamsResult> => {
  const agent = new Agent({ keepAlive: false, maxSockets: Number.POSITIVE_INFINITY })
  if (options.heapSnapshots === true) {
    process.kill(options.pid, "SIGUSR2")
    await new Promise((r) => setTimeout(r, 15_000))
  }
  const rssBeforeMb = rssMb(options.pid)
  const streams: Array<OpenStream> = []
  // Opened in batches so the listen backlog never overflows.
  for (let i = 0; i < options.count; i += 100) {
    const batch: Array<OpenStream> = []
    for (let j = i; j < Math.min(options.count, i + 100); j++) {
      batch.push(open(agent, options.port, options.path, options.headers, options.body))
    }
    await Promise.allSettled(batch.map((s) => s.firstData))
    streams.push(...batch)
  }
  const opened = (await Promise.allSettled(streams.map((s) => s.firstData))).filter((r) => r.status === "fulfilled").length
  await new Promise((r) => setTimeout(r, 2000))
  const rssOpenMb = rssMb(options.pid)
  const children = childrenRssMb(options.pid)
  if (options.heapSnapshots === true) {
    process.kill(options.pid, "SIGUSR2")
    await new Promise((r) => setTimeout(r, 15_000))
  }
  await fetch(`http://127.0.0.1:${options.upstreamPort}/control/release`, { method: "POST" })
  const outcomes = await Promise.all(streams.map((s) => s.finished))
  agent.destroy()
  const completed = outcomes.filter(Boolean).length
  return { opened, rssBeforeMb, rssOpenMb, childrenRssMb: children, completed, errors: options.count - completed }
}
