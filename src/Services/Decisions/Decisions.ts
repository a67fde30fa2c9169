import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ChatCompletion } from "../../Domain/ChatCompletion.ts"
import { estimatePromptTokens } from "../../Domain/ChatTokenEstimate.ts"
import { answerOf, type DecisionAnswer, type DecisionResponse, labelsFor } from "../../Domain/DecisionAnswer.ts"
import { callsPerQuestion } from "../../Domain/DecisionCost.ts"
import { decisionMethodOf } from "../../Domain/DecisionModel.ts"
import { type DecisionOutcome, outcomeFromLogprobs, outcomeFromSamples } from "../../Domain/DecisionOutcome.ts"
import { decisionChatRequest, decisionPrefix } from "../../Domain/DecisionPrompt.ts"
import { checkDecisionLimits, type DecisionRequest } from "../../Domain/DecisionRequest.ts"
import { GatewayError, UpstreamFailure } from "../../Domain/GatewayError.ts"
import * as Ids from "../../Domain/Ids.ts"
import type { Usage } from "../../Domain/Usage.ts"
import { optionalSpans } from "../../Streams/OptionalSpans.ts"
import { ModelCatalog } from "../Catalog/ModelCatalog.ts"
import { GatewayConfigFile } from "../Config/GatewayConfigLoader.ts"
import { ProviderRouter } from "../Routing/ProviderRouter.ts"
import type { AttemptLog, Served } from "../Routing/RoutedAttempts.ts"
import { type Answered as Used, type Outcome, type Spent, spentOnFailure } from "../Usage/RequestOutcome.ts"

/**
 * Below this many prompt tokens no provider caches a prefix (OpenAI and Gemini 2.5 Flash cache
 * from 1024, Claude from 1024 or more), so there is nothing to warm.
 * @see https://platform.openai.com/docs/guides/prompt-caching
 * @see https://ai.google.dev/gemini-api/docs/caching (implicit caching)
 * @see https://platform.claude.com/docs/en/build-with-claude/prompt-caching
 */
export const cacheablePrefixTokens = 1024

interface Answered {
  readonly completion: ChatCompletion
  readonly served: Served
}

const addUsage = (total: Usage, usage: Usage): Usage => ({
  promptTokens: total.promptTokens + usage.promptTokens,
  completionTokens: total.completionTokens + usage.completionTokens,
  cachedTokens: (total.cachedTokens ?? 0) + (usage.cachedTokens ?? 0),
  cacheWriteTokens: (total.cacheWriteTokens ?? 0) + (usage.cacheWriteTokens ?? 0)
})

const failureOf = (outcome: Exclude<DecisionOutcome, { _tag: "Distribution" }>, id: string, served: Served): GatewayError =>
  outcome._tag === "Refused"
    ? GatewayError.invalid(`The provider declined to answer question '${id}' (content policy).`, `questions.${id}`, "content_filter")
    : new GatewayError({
      reason: new UpstreamFailure({
        message: `The model '${served.model}' (provider '${served.provider}') ${outcome.problem} for question '${id}'.`,
        provider: served.provider,
        kind: "bad_response"
      })
    })

/**
 * The decisions use case (spec 4.6): limits, catalogue lookup (a model that is not a decision
 * model is a 404), then one upstream chat call per question (or `samples` calls for a model
 * without token probabilities) through the chat router, which owns retries, fallback to another
 * decision model, the deadline and cancellation. Every call starts with the same instructions
 * and state, so the provider's prompt cache bills the state once: when that prefix is large
 * enough to be cached, the first call runs alone and the others follow in parallel (at most
 * `decisions.concurrency` at once), since a cache entry is only usable once its first call
 * has been answered.
 */
export class Decisions extends Context.Service<
  Decisions,
  { readonly run: (request: DecisionRequest, log: AttemptLog) => Effect.Effect<Outcome<DecisionResponse>, GatewayError | Spent> }
>()("gateway/Decisions") {
  static readonly layer = Layer.effect(
    Decisions,
    Effect.gen(function* () {
      const catalog = yield* ModelCatalog
      const router = yield* ProviderRouter
      const settings = (yield* GatewayConfigFile).config.decisions
      const spans = yield* optionalSpans

      /** What the calls answered so far: billed whether the request then succeeds or fails. */
      class Tally {
        served: Served | undefined
        usage: Usage = { promptTokens: 0, completionTokens: 0 }
        used = (): Used => ({
          _tag: "Answered",
          served: this.served,
          usage: this.served === undefined ? undefined : { ...this.usage, completionTokens: 0 },
          units: 0,
          fixedCostNanoUsd: undefined,
          translation: undefined
        })
      }
      const run = (request: DecisionRequest, log: AttemptLog) => {
        const tally = new Tally()
        return spentOnFailure(Effect.map(answer(request, log, tally), (body): Outcome<DecisionResponse> => ({ body, outcome: tally.used() })), tally.used)
      }
      const answer = Effect.fnUntraced(function* (request: DecisionRequest, log: AttemptLog, tally: Tally) {
        const breach = checkDecisionLimits(request, settings)
        if (breach !== undefined) return yield* breach
        const model = (yield* catalog.require(request.model, "decision")).config
        const method = decisionMethodOf(model)
        const call = { method, reasoning: model.capabilities.reasoning }
        const prefix = decisionPrefix(request.stateText)
        const planned = request.questions.map(({ id, question }) => {
          const labels = labelsFor(question)
          return { id, question, labels, chat: decisionChatRequest(request, prefix, question, labels, call) }
        })
        const perQuestion = callsPerQuestion(model, settings)
        const calls = planned.flatMap((_, q) => Array.from({ length: perQuestion }, () => q))

        const ask = (q: number): Effect.Effect<Answered, GatewayError> =>
          Effect.map(router.complete(model, planned[q]!.chat, log), ({ completion, served }) => {
            // Counted as each call ends, so a request that fails later is billed for what it used.
            tally.usage = addUsage(tally.usage, completion.usage)
            tally.served ??= served
            return { completion, served }
          })

        const prefixTokens = estimatePromptTokens({ ...planned[0]!.chat, messages: prefix })
        const warm = calls.length > 1 && prefixTokens >= cacheablePrefixTokens
        const first = warm ? [yield* ask(calls[0]!)] : []
        const rest = yield* Effect.forEach(warm ? calls.slice(1) : calls, ask, { concurrency: settings.concurrency })
        const answered = [...first, ...rest]

        const answers: Record<string, DecisionAnswer> = {}
        for (const [q, plan] of planned.entries()) {
          const mine = answered.slice(q * perQuestion, (q + 1) * perQuestion)
          const outcome = method === "logprobs"
            ? outcomeFromLogprobs(plan.labels, mine[0]!.completion)
            : outcomeFromSamples(plan.labels, mine.map((a) => a.completion))
          if (outcome._tag !== "Distribution") return yield* failureOf(outcome, plan.id, mine[0]!.served)
          answers[plan.id] = answerOf(plan.question, outcome.distribution, method)
        }
        return {
          id: Ids.responseId(),
          model: request.model,
          answers,
          usage: {
            input_tokens: tally.usage.promptTokens,
            output_tokens: tally.usage.completionTokens,
            input_tokens_details: { cached_tokens: tally.usage.cachedTokens ?? 0 }
          }
        } satisfies DecisionResponse
      }, spans.span("Decisions.run"))

      return Decisions.of({ run })
    })
  )
}
