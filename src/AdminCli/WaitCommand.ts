import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import { CliUsageError, parseDuration } from "./CliArgs.ts"
import { trimEndChars } from "../Domain/TrimChars.ts"

/** Where a gateway started with the same environment listens: PORT, else 8080, on loopback. */
export const defaultGatewayUrl = (env: Readonly<Record<string, string | undefined>>): string =>
  `http://127.0.0.1:${env["PORT"] !== undefined && env["PORT"] !== "" && env["PORT"] !== "0" ? env["PORT"] : "8080"}`

/** One probe of `/readyz`: true only for a 200, so a gateway whose database is still opening is not ready. */
const probe = (url: string) =>
  Effect.tryPromise(() => fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) })).pipe(
    Effect.map((response) => response.status === 200),
    Effect.catch(() => Effect.succeed(false))
  )

export class NotReadyError extends Error {}

/**
 * `admin wait [--url] [--timeout 2m]`: polls `/readyz` every 250 ms until the gateway answers 200,
 * so a script can start the gateway in the background and go on only once it serves.
 */
export const waitCommand = Command.make(
  "wait",
  {
    url: Flag.String("url").pipe(Flag.withDescription("Gateway base URL (default http://127.0.0.1:$PORT, PORT defaulting to 8080)"), Flag.optional),
    timeout: Flag.String("timeout").pipe(Flag.withDescription("Give up after this long, e.g. 90s or 2m (default 2m)"), Flag.optional)
  },
  (input) =>
    Effect.gen(function* () {
      const url = trimEndChars(Option.getOrElse(input.url, () => defaultGatewayUrl(process.env)), "/")
      if (!/^https?:\/\//.test(url)) return yield* new CliUsageError({ message: `--url: expected an http(s) URL, got '${url}'` })
      const seconds = Option.isSome(input.timeout) ? yield* parseDuration("--timeout", input.timeout.value) : 120
      const deadline = Date.now() + seconds * 1000
      while (!(yield* probe(url))) {
        if (Date.now() >= deadline) {
          return yield* Effect.fail(new NotReadyError(`the gateway at ${url} was not ready within ${seconds} s (GET /readyz)`))
        }
        yield* Effect.sleep(250)
      }
      yield* Console.log(`gateway ready at ${url}`)
    })
).pipe(Command.withDescription("Wait until the gateway answers GET /readyz with 200"))
