/** A running Node process's memory right after a full GC, in MB. */
export interface LiveHeap {
  /** What the JS heap holds (`heapUsed`): the figure that tells a leak from a roomy heap. */
  readonly usedMb: number
  /** What V8 keeps for the JS heap (`heapTotal`), the young generation's semi-spaces included. */
  readonly committedMb: number
  /** Memory outside the JS heap that JS objects hold (`external`: buffers, WebAssembly memory). */
  readonly externalMb: number
}

/**
 * A process's memory after a full GC: its inspector is opened with SIGUSR1, a full GC is forced
 * through the inspector protocol, and `process.memoryUsage()` read after it. RSS includes heap
 * capacity V8 keeps after a burst, so these figures tell what is held from what is room.
 * Each call opens the inspector on its default port (9229) and closes it again.
 */
export const liveHeap = async (pid: number): Promise<LiveHeap> => {
  process.kill(pid, "SIGUSR1")
  let targets: Array<{ readonly webSocketDebuggerUrl: string }> = []
  for (let i = 0; i < 50 && targets.length === 0; i++) {
    await new Promise((r) => setTimeout(r, 100))
    try {
      targets = (await (await fetch("http://127.0.0.1:9229/json/list")).json()) as typeof targets
    } catch {
      // Not listening yet.
    }
  }
  if (targets.length === 0) throw new Error(`process ${pid} did not open its inspector`)
  const socket = new WebSocket(targets[0]!.webSocketDebuggerUrl)
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve)
    socket.addEventListener("error", reject)
  })
  let nextId = 0
  const waiting = new Map<number, (result: unknown) => void>()
  socket.addEventListener("message", (message) => {
    const data = JSON.parse(String(message.data)) as { id?: number; result?: unknown }
    if (data.id !== undefined) waiting.get(data.id)?.(data.result)
  })
  const call = (method: string, params: Record<string, unknown> = {}) =>
    new Promise<unknown>((resolve) => {
      const id = ++nextId
      waiting.set(id, resolve)
      socket.send(JSON.stringify({ id, method, params }))
    })
  try {
    await call("HeapProfiler.collectGarbage")
    const answer = (await call("Runtime.evaluate", { expression: "process.memoryUsage()", returnByValue: true })) as {
      result: { value: NodeJS.MemoryUsage }
    }
    const usage = answer.result.value
    const mb = (bytes: number) => bytes / (1024 * 1024)
    return { usedMb: mb(usage.heapUsed), committedMb: mb(usage.heapTotal), externalMb: mb(usage.external) }
  } finally {
    // Close the inspector so the process runs as before (the call's answer never comes back).
    socket.send(JSON.stringify({ id: ++nextId, method: "Runtime.evaluate", params: { expression: "require('node:inspector').close()", includeCommandLineAPI: true } }))
    await new Promise((r) => setTimeout(r, 200))
    socket.close()
  }
}
