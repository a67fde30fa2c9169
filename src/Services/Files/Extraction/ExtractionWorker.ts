/**
 * Entry point of an extraction worker thread. It runs under plain Node with type stripping,
 * so this file and everything it imports use only erasable TypeScript and `.ts` specifiers.
 * One task at a time: the pool never sends a second request before the first is answered.
 * `Object.prototype` is frozen before any reader is loaded (readers are imported on first use;
 * see `FrozenPrototype`). The pool starts the thread with an empty environment.
 */
import { parentPort } from "node:worker_threads"
import { runTask, type WorkerMessage, type WorkerRequest } from "./ExtractionJob.ts"
import { freezeObjectPrototype } from "./FrozenPrototype.ts"

freezeObjectPrototype()

const port = parentPort
if (port === null) throw new Error("ExtractionWorker.ts must be started as a worker thread")

port.on("message", (request: WorkerRequest) => {
  void runTask(request.task).then((outcome) => {
    const response: WorkerMessage = { _tag: "Done", id: request.id, outcome }
    const transfer = outcome._tag === "Rendered" ? outcome.images.map((image) => image.buffer as ArrayBuffer) : []
    port.postMessage(response, transfer)
  })
})

const ready: WorkerMessage = { _tag: "Ready" }
port.postMessage(ready)
