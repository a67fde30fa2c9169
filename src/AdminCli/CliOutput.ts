import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Flag from "effect/cli/Flag"
import * as GlobalFlag from "effect/cli/GlobalFlag"

/** `--json` anywhere on the line: print the admin API's JSON bodies instead of text. */
export const Json = GlobalFlag.Setting("json")({
  flag: Flag.Boolean("json").pipe(Flag.withDefault(false), Flag.withDescription("Print JSON (the admin API's response bodies) for scripts"))
})

/** Prints `value` as JSON under --json, else the human rendering. */
export const emit = <A>(value: A, human: (value: A) => string) =>
  Effect.flatMap(Json, (json) => Console.log(json ? JSON.stringify(value, null, 2) : human(value)))
