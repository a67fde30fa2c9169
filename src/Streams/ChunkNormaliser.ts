import type { ChoiceLogprobs, FinishReason } from "../Domain/ChatCompletion.ts"
import type { ChatStreamEvent } from "../Domain/ChatStreamEvent.ts"
import { type Usage, usageToWire, type UsageWire } from "../Domain/Usage.ts"

/** A `chat.completion.chunk` as it goes on the wire (spec 6.2). */
export interface ChunkWire {
  readonly id: string
  readonly object: "chat.completion.chunk"
  readonly created: number
  readonly model: string
  readonly system_fingerprint?: string
  readonly choices: ReadonlyArray<{
    readonly index: number
    readonly delta: Record<string, unknown>
    readonly logprobs?: ChoiceLogprobs | null
    readonly finish_reason: FinishReason | null
  }>
  readonly usage?: UsageWire
  /**
   * Only on the chunks of a native call (see the `Native` stream event), never on chat's wire:
   * the upstream event as it came, carried with no choices, in the order it came.
   */
  readonly native?: { readonly event: string; readonly data: string }
}

export interface ChunkEnvelope {
  readonly id: string
  readonly created: number
  readonly model: string
}

interface ChoiceState {
  started: boolean
  finished: boolean
  sawTools: boolean
  readonly tools: Set<number>
}

/**
 * Turns provider-neutral events into exactly the spec 6.3 / 6.4 sequence, per choice:
 * one role chunk before anything else, deltas carrying only new text, a tool call's first
 * chunk with id/type/name and empty arguments then argument pieces, one finish chunk with an
 * empty delta, and after every choice a single usage chunk (only when asked for). Finish chunks
 * are held until the upstream ended properly (`end`): a stream that breaks after its finish
 * reason (before `[DONE]`, say) must not have told the client it stopped normally.
 * Duplicated or out-of-order provider events (a repeated start, a delta after finish) are
 * dropped here so no provider codec has to get this right on its own.
 */
export class ChunkNormaliser {
  private readonly choices = new Map<number, ChoiceState>()
  private readonly finishes: Array<ChunkWire> = []
  private usage: Usage | undefined
  /** True once a content, reasoning, refusal or tool-call delta went out: the point of no return. */
  committed = false

  private readonly envelope: ChunkEnvelope
  private readonly includeUsage: boolean

  constructor(envelope: ChunkEnvelope, includeUsage: boolean) {
    this.envelope = envelope
    this.includeUsage = includeUsage
  }

  get lastUsage(): Usage | undefined {
    return this.usage
  }

  private chunk(index: number, delta: Record<string, unknown>, finish: FinishReason | null, logprobs?: ChoiceLogprobs): ChunkWire {
    return {
      id: this.envelope.id,
      object: "chat.completion.chunk",
      created: this.envelope.created,
      model: this.envelope.model,
      choices: [{ index, delta, ...(logprobs === undefined ? {} : { logprobs }), finish_reason: finish }]
    }
  }

  private choice(index: number, out: Array<ChunkWire>): ChoiceState | undefined {
    let state = this.choices.get(index)
    if (state === undefined) {
      state = { started: false, finished: false, sawTools: false, tools: new Set() }
      this.choices.set(index, state)
    }
    if (state.finished) return undefined
    if (!state.started) {
      state.started = true
      out.push(this.chunk(index, { role: "assistant", content: "" }, null))
    }
    return state
  }

  push(event: ChatStreamEvent): Array<ChunkWire> {
    const out: Array<ChunkWire> = []
    switch (event._tag) {
      case "Native":
        out.push({
          id: this.envelope.id,
          object: "chat.completion.chunk",
          created: this.envelope.created,
          model: this.envelope.model,
          choices: [],
          native: { event: event.event, data: event.data }
        })
        return out
      case "TextDelta": {
        if (event.text === "" && event.logprobs === undefined) return out
        if (this.choice(event.choice, out) === undefined) return out
        out.push(this.chunk(event.choice, { content: event.text }, null, event.logprobs))
        this.committed = true
        return out
      }
      case "ReasoningDelta":
      case "RefusalDelta": {
        if (event.text === "") return out
        if (this.choice(event.choice, out) === undefined) return out
        const key = event._tag === "ReasoningDelta" ? "reasoning_content" : "refusal"
        out.push(this.chunk(event.choice, { [key]: event.text }, null))
        this.committed = true
        return out
      }
      case "ToolCallStart": {
        const state = this.choice(event.choice, out)
        if (state === undefined || state.tools.has(event.toolIndex)) return out
        state.tools.add(event.toolIndex)
        state.sawTools = true
        out.push(
          this.chunk(
            event.choice,
            {
              tool_calls: [
                { index: event.toolIndex, id: event.id, type: "function", function: { name: event.name, arguments: "" } }
              ]
            },
            null
          )
        )
        this.committed = true
        return out
      }
      case "ToolCallDelta": {
        if (event.arguments === "") return out
        const state = this.choices.get(event.choice)
        // Arguments for a call that never started cannot be attributed; the codec must start it first.
        if (state === undefined || state.finished || !state.tools.has(event.toolIndex)) return out
        out.push(this.chunk(event.choice, { tool_calls: [{ index: event.toolIndex, function: { arguments: event.arguments } }] }, null))
        return out
      }
      case "Finish": {
        const state = this.choice(event.choice, out)
        if (state === undefined) return out
        state.finished = true
        this.finishes.push(this.chunk(event.choice, {}, state.sawTools && event.reason === "stop" ? "tool_calls" : event.reason))
        return out
      }
      case "Usage": {
        this.usage = event.usage
        return out
      }
      case "Native":
      case "ReasoningSigned":
        return out
    }
  }

  /** The upstream ended normally: the finish chunks held, every open choice closed, then the usage chunk if asked for. */
  end(): Array<ChunkWire> {
    const out: Array<ChunkWire> = this.finishes.splice(0)
    if (this.choices.size === 0) this.choice(0, out)
    for (const [index, state] of this.choices) {
      if (state.finished) continue
      state.finished = true
      out.push(this.chunk(index, {}, state.sawTools ? "tool_calls" : "stop"))
    }
    if (this.includeUsage) {
      out.push({
        id: this.envelope.id,
        object: "chat.completion.chunk",
        created: this.envelope.created,
        model: this.envelope.model,
        choices: [],
        usage: usageToWire(this.usage ?? { promptTokens: 0, completionTokens: 0 })
      })
    }
    return out
  }
}
