import { Worker } from "node:worker_threads"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import * as Semaphore from "effect/Semaphore"
import type * as Scope from "effect/Scope"
import type { ExtractionOutcome, ExtractionTask, WorkerMessage, WorkerRequest } from "./ExtractionJob.ts"

export interface WorkerPoolSettings {
  /** Threads that may run at once; more tasks wait for a free one. */
  readonly workers: number
  /** Wall-clock bound of one task, from hand-over to answer (a fresh worker's start-up counts). */
  readonly timeoutMs: number
  /** Old-generation heap of each worker. Buffers outside the JS heap are not counted by V8. */
  readonly maxMemoryMb: number
}

export interface WorkerPoolStats {
  /** Tasks handed to a worker so far. */
  readonly tasks: number
  readonly live: number
  readonly idle: number
  /** Workers stopped because a task overran, crashed them, or its caller went away. */
  readonly terminated: number
}

export interface WorkerPool {
  /** Never fails: the file's problems are `Failed` outcomes; a broken installation is a defect. */
  readonly run: (task: ExtractionTask) => Effect.Effect<ExtractionOutcome>
  readonly stats: Effect.Effect<WorkerPoolStats>
}

interface Thread {
  readonly worker: Worker
  ready: boolean
}

interface Answer {
  readonly outcome: ExtractionOutcome
  /** False when the thread died or its state is unknown, so it must not serve another task. */
  readonly reusable: boolean
}

const entry = new URL("./ExtractionWorker.ts", import.meta.url)

/**
 * Below a few MB V8 cannot even deserialize a new isolate's snapshot, and then it aborts the
 * whole process rather than failing the worker; the configured heap never goes below this.
 */
export const minimumHeapMb = 16

const errorCode = (error: unknown): unknown =>
  typeof error === "object" && error !== null && "code" in error ? error.code : undefined

/**
 * A fixed-size pool of extraction threads, started on demand and kept for reuse. A task that
 * overruns `timeoutMs`, or whose caller is interrupted, gets its thread terminated: parsers
 * cannot be cancelled cooperatively, and a thread stuck in a decompression loop must not keep
 * its slot. The scope that builds the pool terminates every thread when it closes.
 */
export const makeWorkerPool = (settings: WorkerPoolSettings): Effect.Effect<WorkerPool, never, Scope.Scope> =>
  Effect.gen(function* () {
    const permits = yield* Semaphore.make(settings.workers)
    const idle: Array<Thread> = []
    const live = new Set<Thread>()
    let terminated = 0
    let tasks = 0
    let nextId = 0
    let closed = false
    const seconds = Math.max(1, Math.round(settings.timeoutMs / 1000))
    const heapMb = Math.max(minimumHeapMb, settings.maxMemoryMb)

    const spawn = (): Thread => {
      const worker = new Worker(entry, { resourceLimits: { maxOldGenerationSizeMb: heapMb } })
      const thread: Thread = { worker, ready: false }
      live.add(thread)
      worker.on("message", (message: WorkerMessage) => {
        if (message._tag === "Ready") thread.ready = true
      })
      // An 'error' always precedes 'exit' here; the task listener reports it.
      worker.on("error", () => undefined)
      worker.once("exit", () => live.delete(thread))
      return thread
    }

    const discard = (thread: Thread) =>
      Effect.promise(() => {
        live.delete(thread)
        terminated++
        return thread.worker.terminate().catch(() => undefined)
      })

    const died = (thread: Thread, error: unknown): ExtractionOutcome => {
      if (errorCode(error) === "ERR_WORKER_OUT_OF_MEMORY") {
        return {
          _tag: "Failed",
          failure: {
            kind: "too_complex",
            reason: `reading the document needs more than the ${heapMb} MB of memory extraction may use`
          }
        }
      }
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : `exit code ${String(error)}`
      if (!thread.ready) return { _tag: "Broken", detail: `the extraction worker failed to start: ${detail}` }
      return {
        _tag: "Failed",
        failure: { kind: "corrupt", reason: "the file could not be read; it is damaged or not a valid document" },
        detail
      }
    }

    const answer = (thread: Thread, request: WorkerRequest, transfer: ReadonlyArray<ArrayBuffer>) =>
      Effect.callback<Answer>((resume) => {
        const cleanup = () => {
          thread.worker.off("message", onMessage)
          thread.worker.off("error", onError)
          thread.worker.off("exit", onExit)
        }
        const settle = (result: Answer) => {
          cleanup()
          resume(Effect.succeed(result))
        }
        const onMessage = (message: WorkerMessage) => {
          if (message._tag === "Done" && message.id === request.id) settle({ outcome: message.outcome, reusable: true })
        }
        const onError = (error: unknown) => settle({ outcome: died(thread, error), reusable: false })
        const onExit = (code: number) => settle({ outcome: died(thread, code), reusable: false })
        thread.worker.on("message", onMessage)
        thread.worker.on("error", onError)
        thread.worker.on("exit", onExit)
        thread.worker.postMessage(request, [...transfer])
        return Effect.sync(cleanup)
      })

    const timedOut: Answer = {
      outcome: {
        _tag: "Failed",
        failure: {
          kind: "timeout",
          reason: `the document took too long to read (over ${seconds} s) and extraction was stopped; it may be very large or malformed`
        }
      },
      reusable: false
    }

    const run = (task: ExtractionTask): Effect.Effect<ExtractionOutcome> => {
      // One tight copy handed over to the thread, so the caller's buffer stays usable.
      const bytes = new Uint8Array(task.bytes)
      const request: WorkerRequest = { id: nextId++, task: { ...task, bytes } }
      return Effect.acquireUseRelease(
        Effect.sync(() => {
          tasks++
          return idle.pop() ?? spawn()
        }),
        (thread) =>
          answer(thread, request, [bytes.buffer as ArrayBuffer]).pipe(
            Effect.timeoutOption(Duration.millis(settings.timeoutMs)),
            Effect.map(Option.getOrElse(() => timedOut))
          ),
        (thread, exit) =>
          Exit.isSuccess(exit) && exit.value.reusable && !closed
            ? Effect.sync(() => {
                idle.push(thread)
              })
            : discard(thread)
      ).pipe(
        permits.withPermits(1),
        Effect.flatMap(({ outcome }) =>
          outcome._tag === "Broken" ? Effect.die(new Error(`document extraction is broken: ${outcome.detail}`)) : Effect.succeed(outcome)
        )
      )
    }

    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        closed = true
        idle.length = 0
        await Promise.all([...live].map((thread) => thread.worker.terminate().catch(() => undefined)))
        live.clear()
      })
    )

    return {
      run,
      stats: Effect.sync(() => ({ tasks, live: live.size, idle: idle.length, terminated }))
    }
  })
