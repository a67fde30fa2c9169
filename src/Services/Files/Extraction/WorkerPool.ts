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
  /**
   * Memory of one worker: its V8 heap is limited to this, and a watchdog stops it when heap and
   * buffers together pass it (V8 does not count ArrayBuffers against the heap limit).
   */
  readonly maxMemoryMb: number
}

export interface WorkerPoolStats {
  /** Tasks handed to a worker so far. */
  readonly tasks: number
  readonly live: number
  readonly idle: number
  /** Workers stopped because a task overran, failed, crashed them, or its caller went away. */
  readonly terminated: number
}

/** Runs tasks in the slot a `reserve` holds. */
export type SlotRunner = (task: ExtractionTask, options?: { readonly timeoutMs?: number | undefined }) => Effect.Effect<ExtractionOutcome>

export interface WorkerPool {
  /** Never fails: the file's problems are `Failed` outcomes; a broken installation is a defect. */
  readonly run: SlotRunner
  /**
   * Holds one slot for `use`, so a caller loads a document into memory only once it may run:
   * waiting requests hold no bytes.
   */
  readonly reserve: <A, E, R>(use: (run: SlotRunner) => Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
  readonly stats: Effect.Effect<WorkerPoolStats>
}

interface Thread {
  readonly worker: Worker
  ready: boolean
}

interface Answer {
  readonly outcome: ExtractionOutcome
  /** False when the thread died, failed or its state is unknown, so it must not serve another task. */
  readonly reusable: boolean
}

const entry = new URL("./ExtractionWorker.ts", import.meta.url)

/**
 * Below a few MB V8 cannot even deserialize a new isolate's snapshot, and then it aborts the
 * whole process rather than failing the worker; the configured heap never goes below this.
 */
export const minimumHeapMb = 16

/** How often a busy worker's heap and buffers are measured. */
const watchEveryMs = 100

/** Deep enough for documents and pages nested thousands of levels; a deeper one fails cleanly. */
const stackSizeMb = 32

const errorCode = (error: unknown): unknown =>
  typeof error === "object" && error !== null && "code" in error ? error.code : undefined

/**
 * A fixed-size pool of extraction threads, started on demand and kept for reuse. A task that
 * overruns its time, outgrows its memory, fails, or whose caller is interrupted, gets its thread
 * terminated: parsers cannot be cancelled cooperatively, and a thread stuck in a decompression
 * loop or left in an unknown state must not keep its slot. Threads start with an empty
 * environment (no secret of the gateway's is readable there). The scope that builds the pool
 * terminates every thread when it closes.
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
    const heapMb = Math.max(minimumHeapMb, settings.maxMemoryMb)

    const spawn = (): Thread => {
      const worker = new Worker(entry, { resourceLimits: { maxOldGenerationSizeMb: heapMb, stackSizeMb }, env: {} })
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

    const outOfMemory: ExtractionOutcome = {
      _tag: "Failed",
      failure: { kind: "too_complex", reason: `reading the document needs more than the ${heapMb} MB of memory extraction may use (files.extraction.max_memory_mb)` }
    }

    const died = (thread: Thread, error: unknown): ExtractionOutcome => {
      if (errorCode(error) === "ERR_WORKER_OUT_OF_MEMORY") return outOfMemory
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
        let settled = false
        const cleanup = () => {
          settled = true
          clearInterval(watch)
          thread.worker.off("message", onMessage)
          thread.worker.off("error", onError)
          thread.worker.off("exit", onExit)
        }
        const settle = (result: Answer) => {
          if (settled) return
          cleanup()
          resume(Effect.succeed(result))
        }
        const onMessage = (message: WorkerMessage) => {
          if (message._tag === "Done" && message.id === request.id) settle({ outcome: message.outcome, reusable: message.outcome._tag !== "Failed" })
        }
        const onError = (error: unknown) => settle({ outcome: died(thread, error), reusable: false })
        const onExit = (code: number) => settle({ outcome: died(thread, code), reusable: false })
        // Buffers (inflated parts, decoded images) live outside the V8 heap and its limit: the
        // watchdog counts them with the heap and stops the thread past the bound.
        const watch = setInterval(() => {
          thread.worker.getHeapStatistics().then(
            (heap) => {
              if (heap.used_heap_size + heap.external_memory > heapMb * 1024 * 1024) settle({ outcome: outOfMemory, reusable: false })
            },
            () => undefined
          )
        }, watchEveryMs)
        thread.worker.on("message", onMessage)
        thread.worker.on("error", onError)
        thread.worker.on("exit", onExit)
        thread.worker.postMessage(request, [...transfer])
        return Effect.sync(cleanup)
      })

    const timedOut = (timeoutMs: number): Answer => ({
      outcome: {
        _tag: "Failed",
        failure: {
          kind: "timeout",
          // A caller's own shorter budget (a web tool's) is not the setting: name the setting only when it decided.
          reason: `the document took too long to read (over ${Math.max(1, Math.round(timeoutMs / 1000))} s${timeoutMs === settings.timeoutMs ? ", files.extraction.timeout_ms" : ""}) and extraction was stopped; it may be very large or malformed`
        }
      },
      reusable: false
    })

    const runInSlot: SlotRunner = (task, options) => {
      const timeoutMs = Math.min(options?.timeoutMs ?? settings.timeoutMs, settings.timeoutMs)
      // One tight copy handed over to the thread, so the caller's buffer stays usable.
      const bytes = task._tag === "Job" ? undefined : new Uint8Array(task.bytes)
      const request: WorkerRequest = { id: nextId++, task: task._tag === "Job" ? task : { ...task, bytes: bytes! } }
      return Effect.acquireUseRelease(
        Effect.sync(() => {
          tasks++
          return idle.pop() ?? spawn()
        }),
        (thread) =>
          answer(thread, request, bytes === undefined ? [] : [bytes.buffer as ArrayBuffer]).pipe(
            Effect.timeoutOption(Duration.millis(timeoutMs)),
            Effect.map(Option.getOrElse(() => timedOut(timeoutMs)))
          ),
        (thread, exit) =>
          Exit.isSuccess(exit) && exit.value.reusable && !closed
            ? Effect.sync(() => {
                idle.push(thread)
              })
            : discard(thread)
      ).pipe(
        Effect.flatMap(({ outcome }) =>
          outcome._tag === "Broken" ? Effect.die(new Error(`document extraction is broken: ${outcome.detail}`)) : Effect.succeed(outcome)
        )
      )
    }

    const reserve = <A, E, R>(use: (run: SlotRunner) => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      permits.withPermits(1)(use(runInSlot))

    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        closed = true
        idle.length = 0
        await Promise.all([...live].map((thread) => thread.worker.terminate().catch(() => undefined)))
        live.clear()
      })
    )

    return {
      run: (task, options) => reserve((run) => run(task, options)),
      reserve,
      stats: Effect.sync(() => ({ tasks, live: live.size, idle: idle.length, terminated }))
    }
  })
