import * as Data from "effect/Data"
import { GatewayError } from "../../../Domain/GatewayError.ts"

/** The configured store cannot be used; stops start-up with this one line. */
export class FileStoreInitError extends Data.TaggedError("FileStoreInitError")<{
  readonly message: string
}> {}

// Client-facing messages leave the key out: it is internal and names the project.

export const missingFile = (): GatewayError => GatewayError.notFound("The requested file does not exist.")

export const changedFile = (): GatewayError =>
  GatewayError.notFound("The requested file was deleted or replaced while it was being read.")

export const fileTooLarge = (maxBytes: number): GatewayError =>
  GatewayError.tooLarge(`The file exceeds the maximum size of ${maxBytes} bytes.`, "file")
