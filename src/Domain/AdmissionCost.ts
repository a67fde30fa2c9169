import { estimatePromptTokens } from "./ChatTokenEstimate.ts"
import type { ChatRequest } from "./ChatRequest.ts"
import { decisionPromptTokens, decisionWorstCaseNanoUsd } from "./DecisionCost.ts"
import type { DecisionRequest } from "./DecisionRequest.ts"
import type { EmbeddingRequest } from "./EmbeddingRequest.ts"
import { estimatePromptTokens as embeddingTokens } from "./EmbeddingTokens.ts"
import type { GatewayConfig, ModelConfig, Pricing } from "./GatewayConfig.ts"
import { imageCostBoundNanoUsd } from "./ImageCost.ts"
import type { ImageRequest } from "./ImageRequest.ts"
import { costNanoUsd } from "./Pricing.ts"
import { embeddingTokenBound, promptTokenBound } from "./PromptTokenBound.ts"
import { transcriptionCostNanoUsd } from "./TranscriptionCost.ts"

/**
 * What a request may cost at most, decided before any upstream call: the nano-dollars the
 * billing step reserves and the tokens charged against TPM, both corrected when it settles.
 * `unpriced` names a model the request may be billed for that has no price at all.
 */
export interface AdmissionAsk {
  readonly nanoUsd: number
  readonly tokens: number
  readonly unpriced?: string | undefined
  /** What set `nanoUsd`: a refusal names it, so the client knows which model and cap to lower. */
  readonly setBy?: WorstCaseSource | undefined
}

/**
 * The model whose price made the worst case, whether it is the requested one or a fallback,
 * and, for token-priced calls, the output cap counted and where that cap came from.
 */
export interface WorstCaseSource {
  readonly model: string
  readonly fallback: boolean
  readonly outputTokens?: number
  /** `request`: the request's own max_tokens; `model`: the model's max_output_tokens; `default`: neither was set. */
  readonly cap?: "request" | "model" | "default"
}

type OneAsk = { readonly nanoUsd: number; readonly tokens: number; readonly outputTokens?: number; readonly cap?: WorstCaseSource["cap"] }

export const freeAsk: AdmissionAsk = { nanoUsd: 0, tokens: 0 }

/** What the worst-case functions read: the loaded configuration and the catalogue's models. */
export interface CostContext {
  readonly config: GatewayConfig
  readonly model: (id: string) => ModelConfig | undefined
}

/** A route's worst case: the request (decoded) to its admission ask. */
export type WorstCase<A> = (request: A, context: CostContext) => AdmissionAsk

/** Output tokens reserved for a chat model that declares no `max_output_tokens` and a request without a cap. */
export const defaultOutputReserve = 4_096

export const hasNoPrice = (pricing: Pricing): boolean => Object.values(pricing).every((price) => price === undefined)

/** The model and its fallbacks, as far as they are configured: each of them may serve and bill the call. */
const candidates = (id: string, context: CostContext): ReadonlyArray<ModelConfig> => {
  const first = context.model(id)
  if (first === undefined) return []
  const all = [first]
  for (const fallback of first.fallbacks) {
    const model = context.model(fallback)
    if (model !== undefined) all.push(model)
  }
  return all
}

/** The largest ask over every model that may serve the request. */
const worstOf = (id: string, context: CostContext, ask: (model: ModelConfig) => OneAsk): AdmissionAsk => {
  let nanoUsd = 0
  let tokens = 0
  let unpriced: string | undefined
  let setBy: WorstCaseSource | undefined
  for (const [index, model] of candidates(id, context).entries()) {
    const one = ask(model)
    if (setBy === undefined || one.nanoUsd > nanoUsd) {
      setBy = {
        model: model.id,
        fallback: index > 0,
        ...(one.outputTokens === undefined ? {} : { outputTokens: one.outputTokens }),
        ...(one.cap === undefined ? {} : { cap: one.cap })
      }
    }
    nanoUsd = Math.max(nanoUsd, one.nanoUsd)
    tokens = Math.max(tokens, one.tokens)
    if (unpriced === undefined && hasNoPrice(model.pricing)) unpriced = model.id
  }
  return { nanoUsd, tokens, unpriced, setBy }
}

/** Prompt priced at the dearer of input and cache-write (the cache may miss), plus the output cap for every choice. */
const tokenCost = (pricing: Pricing, promptTokens: number, completionTokens: number): number => {
  const writeCostsMore = (pricing.cache_write_per_mtok ?? 0) > (pricing.input_per_mtok ?? 0)
  return costNanoUsd(pricing, { promptTokens, completionTokens, ...(writeCostsMore ? { cacheWriteTokens: promptTokens } : {}) })
}

/**
 * The money held is priced from an upper bound of the prompt's tokens (PromptTokenBound.ts), so
 * the settled cost cannot exceed it and a balance cannot go below zero; the tokens charged
 * against TPM use the likely figure, since they are corrected at settlement and a bound would
 * refuse requests a tokens-per-minute limit has room for.
 */
export const chatWorstCase: WorstCase<ChatRequest> = (request, context) => {
  const prompt = estimatePromptTokens(request)
  const bound = promptTokenBound(request)
  return worstOf(request.model, context, (model) => {
    const declared = model.capabilities.max_output_tokens
    const cap = request.max_completion_tokens ?? declared ?? defaultOutputReserve
    const output = cap * request.n
    const source = request.max_completion_tokens !== undefined ? "request" : declared !== undefined ? "model" : "default"
    return { nanoUsd: tokenCost(model.pricing, bound, output), tokens: prompt + output, outputTokens: output, cap: source }
  })
}

export const embeddingWorstCase: WorstCase<EmbeddingRequest> = (request, context) => {
  const prompt = embeddingTokens(request.input)
  const bound = embeddingTokenBound(request.input)
  return worstOf(request.model, context, (model) => ({ nanoUsd: costNanoUsd(model.pricing, { promptTokens: bound, completionTokens: 0 }), tokens: prompt }))
}

export const imageWorstCase: WorstCase<ImageRequest> = (request, context) =>
  worstOf(request.model, context, (model) => {
    const promptBytes = Buffer.byteLength(request.prompt, "utf8")
    return {
      nanoUsd: imageCostBoundNanoUsd(model.pricing, model.capabilities, { n: request.n, promptBytes, referenceCount: request.references.length, inputCalls: request.n }),
      tokens: Math.ceil(promptBytes / 4) + request.n * (model.capabilities.max_output_tokens ?? 0)
    }
  })

export const decisionWorstCase: WorstCase<DecisionRequest> = (request, context) =>
  worstOf(request.model, context, (model) => ({
    nanoUsd: decisionWorstCaseNanoUsd(request, model, context.config.decisions),
    tokens: decisionPromptTokens(request, model, context.config.decisions)
  }))

/**
 * Audio is billed per measured second, and the duration is measured after admission, so the
 * bound comes from the bytes: no supported format carries a second of speech in fewer than
 * 500 bytes (4 kbit/s). A URL to fetch is bounded by the largest file accepted.
 */
export const audioBytesPerSecondBound = 500

export const transcriptionWorstCase = (bytes: number | undefined): WorstCase<{ readonly model: string }> => (request, context) =>
  worstOf(request.model, context, (model) => {
    const size = bytes ?? context.config.audio.max_file_mb * 1024 * 1024
    return { nanoUsd: transcriptionCostNanoUsd(model.pricing, Math.ceil(size / audioBytesPerSecondBound)), tokens: 0 }
  })
