import type { FinishReason } from "../../Domain/ChatCompletion.ts"
import type { ChatStreamEvent } from "../../Domain/ChatStreamEvent.ts"
import type { ReasoningDetail } from "../../Domain/ReasoningDetail.ts"
import type { JsonObject } from "../../Domain/ChatTool.ts"
import * as Ids from "../../Domain/Ids.ts"
import { emptyUsage, type Usage } from "../../Domain/Usage.ts"
import type { StreamEncoder } from "../../Streams/ChatEventStream.ts"
import {
  functionCallItem,
  messageItem,
  nativeItem,
  nativePart,
  nativeResponseOf,
  outputTextPart,
  reasoningItem,
  type ResponseMeta,
  type ResponseObject,
  responseEnvelope,
  statusOf,
  usageToResponses
} from "./ResponseObject.ts"
import type { ResponsesCreate } from "./ResponsesRequest.ts"

/** A typed Responses stream event; `sequence_number` is set on every one, in order from 0. */
export type ResponseEvent = { readonly type: string; readonly sequence_number: number } & JsonObject

type Part = { kind: "output_text"; text: string } | { kind: "refusal"; text: string }

type OpenItem =
  | { readonly kind: "message"; readonly id: string; readonly index: number; readonly parts: Array<Part>; open: boolean }
  | { readonly kind: "reasoning"; readonly id: string; readonly index: number; text: string; readonly details: Array<ReasoningDetail>; open: boolean }
  | { readonly kind: "function_call"; readonly id: string; readonly index: number; readonly callId: string; readonly name: string; args: string; open: boolean }

const partWire = (part: Part): JsonObject => (part.kind === "output_text" ? outputTextPart(part.text) : { type: "refusal", refusal: part.text })

/**
 * Provider-neutral stream events -> the Responses API's typed events, in the documented order:
 * `response.created` and `response.in_progress` with the first content, each output item
 * opened (`output_item.added`, `content_part.added` or `reasoning_summary_part.added`), its
 * deltas, then closed (`*.done`, `output_item.done`), and `response.completed` (or
 * `response.incomplete`) with the whole response. Text and reasoning items close when another
 * item starts; function calls stay open until the end, so argument pieces of parallel calls can
 * interleave. Only choice 0 exists here (a Responses request has one answer).
 * @see https://platform.openai.com/docs/api-reference/responses-streaming
 */
export class ResponsesStreamEncoder implements StreamEncoder<ResponseEvent> {
  private sequence = 0
  private started = false
  private readonly items: Array<OpenItem> = []
  private readonly calls = new Map<number, OpenItem & { kind: "function_call" }>()
  private text: (OpenItem & { kind: "message" }) | undefined
  private reasoning: (OpenItem & { kind: "reasoning" }) | undefined
  private finish: FinishReason | undefined
  private usage: Usage | undefined
  /** The upstream speaks this dialect itself: its events are forwarded, the neutral ones ignored. */
  private native = false
  /** A native stream's items as last announced (added, then done), for a failure's response. */
  private readonly nativeItems: Array<unknown> = []

  private readonly create: ResponsesCreate
  private readonly meta: ResponseMeta
  private readonly now: () => number

  constructor(create: ResponsesCreate, meta: ResponseMeta, now: () => number) {
    this.create = create
    this.meta = meta
    this.now = now
  }

  private event(out: Array<ResponseEvent>, type: string, fields: JsonObject): void {
    out.push({ type, ...fields, sequence_number: this.sequence++ })
  }

  private start(out: Array<ResponseEvent>): void {
    if (this.started) return
    this.started = true
    const response = this.response("in_progress")
    this.event(out, "response.created", { response })
    this.event(out, "response.in_progress", { response })
  }

  /** The item as the API shows it at this point. */
  private itemWire(item: OpenItem): JsonObject {
    switch (item.kind) {
      case "message": {
        const incomplete = !item.open && this.finish !== undefined && statusOf(this.finish).status === "incomplete"
        return messageItem(item.id, item.open ? "in_progress" : incomplete ? "incomplete" : "completed", item.parts.map(partWire))
      }
      case "reasoning":
        return reasoningItem(item.id, item.text, item.details)
      case "function_call":
        return functionCallItem(item.id, { id: item.callId, name: item.name, arguments: item.args }, item.open ? "in_progress" : "completed")
    }
  }

  response(status: ResponseObject["status"], error: ResponseObject["error"] = null): ResponseObject {
    const finished = status === "completed" || status === "incomplete"
    return {
      ...responseEnvelope(this.create, this.meta),
      status,
      completed_at: status === "completed" ? Math.floor(this.now() / 1000) : null,
      error,
      incomplete_details: status === "incomplete" && this.finish !== undefined ? statusOf(this.finish).incomplete_details : null,
      output: this.items.map((item) => this.itemWire(item)),
      // While in progress: zeros, not null. Open Responses requires the key, OpenAI's schema an object.
      usage: usageToResponses(finished || status === "failed" ? this.usage ?? emptyUsage : emptyUsage)
    }
  }

  private close(item: OpenItem, out: Array<ResponseEvent>): void {
    if (!item.open) return
    item.open = false
    const base = { item_id: item.id, output_index: item.index }
    switch (item.kind) {
      case "message":
        item.parts.forEach((part, content_index) => {
          if (part.kind === "output_text") this.event(out, "response.output_text.done", { ...base, content_index, text: part.text, logprobs: [] })
          else this.event(out, "response.refusal.done", { ...base, content_index, refusal: part.text })
          this.event(out, "response.content_part.done", { ...base, content_index, part: partWire(part) })
        })
        if (this.text === item) this.text = undefined
        break
      case "reasoning":
        this.event(out, "response.reasoning_summary_text.done", { ...base, summary_index: 0, text: item.text })
        this.event(out, "response.reasoning_summary_part.done", { ...base, summary_index: 0, part: { type: "summary_text", text: item.text } })
        if (this.reasoning === item) this.reasoning = undefined
        break
      case "function_call":
        this.event(out, "response.function_call_arguments.done", { ...base, name: item.name, arguments: item.args })
        break
    }
    this.event(out, "response.output_item.done", { output_index: item.index, item: this.itemWire(item) })
  }

  private closeAll(out: Array<ResponseEvent>, keepCalls: boolean): void {
    for (const item of this.items) if (item.open && !(keepCalls && item.kind === "function_call")) this.close(item, out)
  }

  private textPart(kind: Part["kind"], delta: string, out: Array<ResponseEvent>): void {
    this.start(out)
    let item = this.text
    if (item === undefined) {
      this.closeAll(out, true)
      item = { kind: "message", id: Ids.outputItemId("msg"), index: this.items.length, parts: [], open: true }
      this.items.push(item)
      this.text = item
      this.event(out, "response.output_item.added", { output_index: item.index, item: this.itemWire(item) })
    }
    const base = { item_id: item.id, output_index: item.index }
    const last = item.parts.at(-1)
    let part: Part
    if (last === undefined || last.kind !== kind) {
      part = { kind, text: "" }
      item.parts.push(part)
      this.event(out, "response.content_part.added", { ...base, content_index: item.parts.length - 1, part: partWire(part) })
    } else {
      part = last
    }
    part.text += delta
    const content_index = item.parts.length - 1
    if (kind === "output_text") this.event(out, "response.output_text.delta", { ...base, content_index, delta, logprobs: [] })
    else this.event(out, "response.refusal.delta", { ...base, content_index, delta })
  }

  /** An upstream Responses event, renumbered, its response under the gateway's id and model. */
  private forward(event: Readonly<Record<string, unknown>>): ReadonlyArray<ResponseEvent> {
    this.native = true
    this.started = true
    const type = typeof event["type"] === "string" ? event["type"] : "unknown"
    const snapshot = event["response"]
    if (snapshot === null || typeof snapshot !== "object") {
      const fields: Record<string, unknown> = { ...event, type, sequence_number: this.sequence++ }
      if ("item" in event) {
        fields["item"] = nativeItem(event["item"])
        if (typeof event["output_index"] === "number") this.nativeItems[event["output_index"]] = fields["item"]
      }
      if ("part" in event) fields["part"] = nativePart(event["part"])
      if (type.startsWith("response.output_text.") && !("logprobs" in event)) fields["logprobs"] = []
      return [fields as ResponseEvent]
    }
    const response = nativeResponseOf(this.create, this.meta, snapshot as Record<string, unknown>, Math.floor(this.now() / 1000))
    if (type === "response.completed" || type === "response.incomplete") this.last = response
    return [{ ...event, type, response, sequence_number: this.sequence++ }]
  }

  /** The reasoning item being written, opened (with its summary part) if there is none. */
  private reasoningItem(out: Array<ResponseEvent>): OpenItem & { kind: "reasoning" } {
    this.start(out)
    const open = this.reasoning
    if (open !== undefined) return open
    this.closeAll(out, true)
    const item: OpenItem & { kind: "reasoning" } = { kind: "reasoning", id: Ids.outputItemId("rs"), index: this.items.length, text: "", details: [], open: true }
    this.items.push(item)
    this.reasoning = item
    this.event(out, "response.output_item.added", { output_index: item.index, item: this.itemWire(item) })
    this.event(out, "response.reasoning_summary_part.added", { item_id: item.id, output_index: item.index, summary_index: 0, part: { type: "summary_text", text: "" } })
    return item
  }

  push(event: ChatStreamEvent): ReadonlyArray<ResponseEvent> {
    if (event._tag === "Native") return this.forward(event.json ?? (JSON.parse(event.data) as Record<string, unknown>))
    if (this.native || ("choice" in event && event.choice !== 0)) return []
    const out: Array<ResponseEvent> = []
    switch (event._tag) {
      case "TextDelta":
        if (event.text !== "") this.textPart("output_text", event.text, out)
        break
      case "RefusalDelta":
        if (event.text !== "") this.textPart("refusal", event.text, out)
        break
      case "ReasoningDelta": {
        if (event.text === "") break
        const item = this.reasoningItem(out)
        item.text += event.text
        this.event(out, "response.reasoning_summary_text.delta", { item_id: item.id, output_index: item.index, summary_index: 0, delta: event.text })
        break
      }
      case "ReasoningSigned":
        // Shown when the item is done, in its `encrypted_content`.
        this.reasoningItem(out).details.push(event.detail)
        break
      case "ToolCallStart": {
        if (this.calls.has(event.toolIndex)) break
        this.start(out)
        if (this.text !== undefined) this.close(this.text, out)
        if (this.reasoning !== undefined) this.close(this.reasoning, out)
        const item: OpenItem & { kind: "function_call" } = {
          kind: "function_call",
          id: Ids.outputItemId("fc"),
          index: this.items.length,
          callId: event.id,
          name: event.name,
          args: "",
          open: true
        }
        this.items.push(item)
        this.calls.set(event.toolIndex, item)
        this.event(out, "response.output_item.added", { output_index: item.index, item: this.itemWire(item) })
        break
      }
      case "ToolCallDelta": {
        const item = this.calls.get(event.toolIndex)
        if (item === undefined || !item.open || event.arguments === "") break
        item.args += event.arguments
        this.event(out, "response.function_call_arguments.delta", { item_id: item.id, output_index: item.index, delta: event.arguments })
        break
      }
      case "Finish":
        this.finish ??= event.reason
        break
      case "Usage":
        this.usage = event.usage
        break
    }
    return out
  }

  /** The upstream ended normally: every open item closed, then the final lifecycle event. */
  end(): ReadonlyArray<ResponseEvent> {
    // A native stream ended with the upstream's own last event, already forwarded.
    if (this.native) return []
    const out: Array<ResponseEvent> = []
    this.start(out)
    this.closeAll(out, false)
    const { status } = statusOf(this.finish ?? "stop")
    this.last = this.response(status)
    this.event(out, status === "completed" ? "response.completed" : "response.incomplete", { response: this.last })
    return out
  }

  /** The final response object once `end` ran (what a stored response keeps). */
  last: ResponseObject | undefined

  /**
   * The stream broke after it started: an `error` event, then `response.failed` with what was
   * produced so far (open items left as they were).
   */
  fail(code: string, message: string): ReadonlyArray<ResponseEvent> {
    const out: Array<ResponseEvent> = []
    this.start(out)
    // The flat fields are OpenAI's shape, `error` the Open Responses one; clients read either.
    this.event(out, "error", { code, message, param: null, error: { type: code === "rate_limit_exceeded" ? "rate_limit_error" : "server_error", code, message, param: null } })
    const failed = this.response("failed", { code, message })
    this.last = this.native ? { ...failed, output: this.nativeItems.filter((item) => item !== undefined) as Array<JsonObject> } : failed
    this.event(out, "response.failed", { response: this.last })
    return out
  }

  get hasStarted(): boolean {
    return this.started
  }
}
