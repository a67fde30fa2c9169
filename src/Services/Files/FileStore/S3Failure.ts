import { S3ServiceException } from "@aws-sdk/client-s3"
import * as Data from "effect/Data"

/**
 * A failed S3 call, reduced to what is safe to log: the operation, the service's error code and
 * the HTTP status. The SDK's exception object is dropped so nothing about the request (and so no
 * credential) can reach a log line.
 */
export class S3Failure extends Data.TaggedError("S3Failure")<{
  readonly operation: string
  readonly code: string
  readonly status: number | undefined
}> {
  static fromCause(operation: string, cause: unknown): S3Failure {
    if (cause instanceof S3ServiceException) {
      return new S3Failure({ operation, code: cause.name, status: cause.$metadata.httpStatusCode })
    }
    const code =
      typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
        ? cause.code
        : cause instanceof Error
          ? cause.name
          : "Unknown"
    return new S3Failure({ operation, code, status: undefined })
  }

  override get message(): string {
    return `S3 ${this.operation} failed: ${this.code}${this.status === undefined ? "" : ` (HTTP ${this.status})`}`
  }

  /** A missing object. A missing bucket is a configuration problem, not a missing file. */
  get isNotFound(): boolean {
    return this.status === 404 && this.code !== "NoSuchBucket"
  }

  get isPreconditionFailed(): boolean {
    return this.status === 412
  }
}
