import type { Deployment, ModelConfig, RoutingSettings } from "../../Domain/GatewayConfig.ts"
import type { GatewayError } from "../../Domain/GatewayError.ts"

export interface Candidate {
  readonly model: ModelConfig
  readonly deployment: Deployment
  /** Circuit-breaker key: provider and upstream model. */
  readonly key: string
}

export interface Step {
  readonly candidate: Candidate
  /** How long to wait before this attempt (backoff on the same deployment, 0 when switching). */
  readonly delayMs: number
}

// Made once per deployment (the catalogue is fixed while the process runs): routing reads the
// health maps with it several times a request, and a string made anew is hashed anew each time.
const deploymentKeys = new WeakMap<Deployment, string>()
export const deploymentKey = (deployment: Deployment): string => {
  let key = deploymentKeys.get(deployment)
  if (key === undefined) deploymentKeys.set(deployment, (key = `${deployment.provider}/${deployment.model}`))
  return key
}

/**
 * Weighted random order without replacement (Efraimidis-Spirakis: sort by u^(1/w)), healthy
 * deployments first; deployments whose circuit is open come last, so they are only tried when
 * everything else failed.
 */
export const weightedOrder = (
  deployments: ReadonlyArray<Deployment>,
  isOpen: (key: string) => boolean,
  random: () => number
): ReadonlyArray<Deployment> =>
  deployments
    .map((deployment) => ({ deployment, open: isOpen(deploymentKey(deployment)), rank: Math.pow(random(), 1 / deployment.weight) }))
    .sort((a, b) => (a.open === b.open ? b.rank - a.rank : a.open ? 1 : -1))
    .map((entry) => entry.deployment)

/** Only an upstream failure says anything about other routes; a client mistake fails everywhere. */
export const canMoveOn = (error: GatewayError): boolean => error.reason._tag === "UpstreamFailure"

/**
 * Decides the next attempt of one request: the model's deployments first (rotating, with
 * backoff and `retry-after` when the same deployment is tried again), then each fallback
 * model the same way, never more than `max_attempts` calls in all. Pure and deterministic
 * given `random`, so its bounds can be property-tested.
 */
export class RoutePlanner {
  private readonly models: ReadonlyArray<ModelConfig>
  private readonly settings: RoutingSettings
  private readonly isOpen: (key: string) => boolean
  private readonly random: () => number
  private modelIndex = 0
  private order: ReadonlyArray<Deployment> = []
  private rotation = 0
  private modelAttempts = 0
  private sameDeploymentRetries = 0
  private last: Candidate | undefined
  used = 0
  /** Providers of the routes found cooling down (circuit open) as each model was entered. */
  readonly cooledDown: Array<string> = []

  constructor(
    models: ReadonlyArray<ModelConfig>,
    settings: RoutingSettings,
    isOpen: (key: string) => boolean,
    random: () => number
  ) {
    this.models = models
    this.settings = settings
    this.isOpen = isOpen
    this.random = random
    this.enterModel()
  }

  private enterModel(): void {
    const model = this.models[this.modelIndex]
    this.order = model === undefined ? [] : weightedOrder(model.deployments, this.isOpen, this.random)
    for (const d of this.order) if (this.isOpen(deploymentKey(d))) this.cooledDown.push(d.provider)
    this.rotation = 0
    this.modelAttempts = 0
    this.sameDeploymentRetries = 0
  }

  private backoff(retryAfterMs: number | undefined): number {
    const ceiling = Math.min(this.settings.max_backoff_ms, this.settings.base_backoff_ms * 2 ** (this.sameDeploymentRetries - 1))
    const jittered = Math.round(this.random() * ceiling)
    return Math.max(jittered, retryAfterMs ?? 0)
  }

  next(error: GatewayError | undefined): Step | undefined {
    if (this.used >= this.settings.max_attempts) return undefined
    if (error !== undefined) {
      if (!canMoveOn(error)) return undefined
      const untried = this.rotation < this.order.length
      const stay = this.modelAttempts < this.settings.attempts_per_model && (error.isRetryable || untried)
      if (!stay) {
        this.modelIndex++
        if (this.modelIndex >= this.models.length) return undefined
        this.enterModel()
      }
    }
    const model = this.models[this.modelIndex]
    if (model === undefined || this.order.length === 0) return undefined
    let deployment = this.order[this.rotation % this.order.length]!
    let candidate: Candidate = { model, deployment, key: deploymentKey(deployment) }
    let delayMs = 0
    if (error !== undefined && this.last !== undefined && this.last.key === candidate.key) {
      const retryAfter = error.retryAfterMs
      if (!error.isRetryable || (retryAfter !== undefined && retryAfter > this.settings.max_backoff_ms)) {
        // Waiting here is pointless or too long: the next model, if any, is the better bet.
        this.modelIndex++
        if (this.modelIndex >= this.models.length) return undefined
        this.enterModel()
        return this.next(undefined)
      }
      this.sameDeploymentRetries++
      delayMs = this.backoff(retryAfter)
    } else {
      this.sameDeploymentRetries = error === undefined ? 0 : 1
    }
    deployment = this.order[this.rotation % this.order.length]!
    candidate = { model, deployment, key: deploymentKey(deployment) }
    this.rotation++
    this.modelAttempts++
    this.used++
    this.last = candidate
    return { candidate, delayMs }
  }
}
