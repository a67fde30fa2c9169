import type { DecisionMethod } from "./DecisionSettings.ts"
import type { ModelConfig } from "./GatewayConfig.ts"

/**
 * The method a decision model answers with. Unless gateway.yaml says otherwise: `logprobs` for
 * a model that returns token probabilities and does not reason (a reasoning model spends its
 * first tokens thinking, so the first answer token is not the label), `sampled` for the rest.
 */
export const decisionMethodOf = (model: ModelConfig): DecisionMethod =>
  model.decision_method ?? (model.capabilities.logprobs && !model.capabilities.reasoning ? "logprobs" : "sampled")

/**
 * What is wrong with a model's decision settings, for the config loader: `decision_method` on a
 * model of another kind, or `logprobs` on a model that cannot deliver them. `returnsLogprobs`
 * says whether a provider's API returns token log-probabilities at all (Anthropic's does not).
 * `field` is relative to the model (`decision_method`, `deployments[0].provider`).
 */
export const decisionModelProblem = (
  model: ModelConfig,
  returnsLogprobs: (providerId: string) => boolean
): { readonly field: string; readonly problem: string } | undefined => {
  if (model.kind !== "decision") {
    return model.decision_method === undefined ? undefined : { field: "decision_method", problem: "applies only to models of kind decision" }
  }
  if (decisionMethodOf(model) !== "logprobs") return undefined
  if (!model.capabilities.logprobs) {
    return { field: "decision_method", problem: "logprobs needs capabilities.logprobs: true (use sampled otherwise)" }
  }
  if (model.capabilities.reasoning) {
    return { field: "decision_method", problem: "logprobs cannot be used with a reasoning model (use sampled)" }
  }
  for (const [j, deployment] of model.deployments.entries()) {
    if (!returnsLogprobs(deployment.provider)) {
      return {
        field: `deployments[${j}].provider`,
        problem: `provider "${deployment.provider}" returns no token probabilities; set decision_method: sampled`
      }
    }
  }
  return undefined
}
