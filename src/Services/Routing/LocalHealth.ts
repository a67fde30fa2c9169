import type { RoutingSettings } from "../../Domain/GatewayConfig.ts"
import type { FailureReport, HealthSnapshot } from "./DeploymentHealthStores.ts"

const nothingShared: HealthSnapshot = { openUntil: new Map(), failing: new Set() }

/**
 * The circuit breakers as this process sees them: its own consecutive failures and cool-downs,
 * and the last snapshot of every instance's state from the shared store. Plain synchronous
 * state, so routing a request reads a map and never waits for a database or Redis.
 */
export class LocalHealth {
  private readonly own = new Map<string, { failures: number; openUntil: number }>()
  private shared: HealthSnapshot = nothingShared
  private readonly routing: RoutingSettings

  constructor(routing: RoutingSettings) {
    this.routing = routing
  }

  /** Unix ms until which the deployment cools down, or 0. */
  openUntil(key: string): number {
    const own = this.own.get(key)?.openUntil ?? 0
    const shared = this.shared.openUntil.get(key) ?? 0
    return own > shared ? own : shared
  }

  /** Whether any instance counts failures for it (so a success has something to reset). */
  isFailing(key: string): boolean {
    return this.own.has(key) || this.shared.failing.has(key)
  }

  failure(key: string, { now, retryAfterMs }: FailureReport): void {
    const entry = this.own.get(key) ?? { failures: 0, openUntil: 0 }
    entry.failures++
    if (entry.failures >= this.routing.failure_threshold) {
      entry.openUntil = Math.max(entry.openUntil, now + this.routing.cooldown_seconds * 1000)
    }
    if (retryAfterMs !== undefined) entry.openUntil = Math.max(entry.openUntil, now + retryAfterMs)
    this.own.set(key, entry)
  }

  success(key: string): void {
    this.own.delete(key)
  }

  adopt(snapshot: HealthSnapshot): void {
    this.shared = snapshot
  }
}
