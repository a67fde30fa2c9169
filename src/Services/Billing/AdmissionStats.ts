/**
 * Counters of the admission step, read by whoever exports metrics. Plain numbers on one object:
 * incremented on the request path, so nothing here may allocate.
 */
export class AdmissionStats {
  /** Requests that went through the checks (not the no-limits fast path). */
  checked = 0
  rateLimited = 0
  refusedBalance = 0
  refusedProjectLimit = 0
  refusedKeyLimit = 0
  refusedUnpriced = 0
  reserved = 0
  /** Of those, admitted from this instance's lease without a database round trip. */
  leased = 0
  settled = 0
  settleFailures = 0
  /** The rate-limit store (Redis) or the billing store (the database) did not answer. */
  rateLimitStoreFailures = 0
  billingStoreFailures = 0
  /** Of those, the requests `limits.on_store_failure` admitted unchecked, and those it refused. */
  admittedOnStoreFailure = 0
  deniedOnStoreFailure = 0
}
