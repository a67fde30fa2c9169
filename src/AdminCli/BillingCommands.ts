import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Command from "effect/cli/Command"
import * as Flag from "effect/cli/Flag"
import type { BillingStatusView, CreditLedgerView } from "../Domain/BillingView.ts"
import { BillingAdmin } from "../Services/Billing/BillingAdmin.ts"
import { CliUsageError } from "./CliArgs.ts"
import { emit } from "./CliOutput.ts"
import { CliServicesLive } from "./CliServices.ts"

const projectFlag = Flag.String("project").pipe(Flag.withAlias("p"), Flag.withDescription("Project id (proj_...)"))
const keyFlag = Flag.String("key").pipe(Flag.withDescription("A key of the project (key_...); omitted: the project"), Flag.optional)
const withBilling = <A, E, R>(run: (billing: BillingAdmin["Service"]) => Effect.Effect<A, E, R>) =>
  Effect.provide(Effect.flatMap(Effect.service(BillingAdmin), run), CliServicesLive)

const usd = (value: number | null) => (value === null ? "none (unlimited)" : `$${value.toFixed(6)}`)
const perMinute = (value: number | null) => (value === null ? "-" : String(value))

export const statusText = (s: BillingStatusView): string =>
  [
    `project   ${s.project_id}`,
    `balance   ${usd(s.balance_usd)}`,
    `reserved  ${usd(s.reserved_usd)}`,
    `spent     today ${usd(s.spend.day_usd)}, this month ${usd(s.spend.month_usd)}, in total ${usd(s.spend.total_usd)}`,
    ...s.spend_limits.map((l) => `limit     ${l.key_id ?? "project"} per ${l.period}: ${usd(l.limit_usd)} (spent ${usd(l.spent_usd)})`),
    ...s.rate_limits.map((r) => `rate      ${r.key_id ?? (r.model === null ? "project" : `model ${r.model}`)}: rpm ${perMinute(r.rpm)}, tpm ${perMinute(r.tpm)}`)
  ].join("\n")

const ledgerText = (l: CreditLedgerView): string =>
  [
    ...l.data.map((e) => `${e.seq}\t${new Date(e.created_at * 1000).toISOString()}\t${e.kind}\t${e.amount_usd}\t${e.request_id ?? (e.requests === null ? (e.note ?? "") : `${e.requests} requests`)}`),
    `balance ${l.balance_nano_usd ?? "none"} nano-USD; rebuilt from the ledger ${l.rebuilt_balance_nano_usd ?? "none"}`
  ].join("\n")

const show = Command.make("show", { project: projectFlag }, (input) =>
  withBilling((billing) => Effect.flatMap(billing.status(input.project), (s) => emit(s, statusText)))
).pipe(Command.withDescription("Balance, spend so far, reserved amount and limits of a project"))

const grant = Command.make(
  "grant",
  {
    project: projectFlag,
    amount: Flag.Finite("usd").pipe(Flag.withDescription("Dollars to add")),
    refund: Flag.Boolean("refund").pipe(Flag.withDefault(false), Flag.withDescription("Record it as a refund instead of a grant")),
    note: Flag.String("note").pipe(Flag.withDescription("Why (kept in the credit ledger)"), Flag.optional)
  },
  (input) =>
    withBilling((billing) =>
      Effect.flatMap(
        billing.credit({ projectId: input.project, amountUsd: input.amount, kind: input.refund ? "refund" : "grant", note: Option.getOrUndefined(input.note) }),
        (s) => emit(s, statusText)
      )
    )
).pipe(Command.withDescription("Add credit to a project's balance"))

const ledger = Command.make("ledger", { project: projectFlag, limit: Flag.Int("limit").pipe(Flag.withDefault(100)) }, (input) =>
  withBilling((billing) => Effect.flatMap(billing.ledger(input.project, input.limit), (l) => emit(l, ledgerText)))
).pipe(Command.withDescription("The credit ledger of a project, newest first"))

const limit = Command.make(
  "limit",
  {
    project: projectFlag,
    key: keyFlag,
    period: Flag.Literals("period", ["day", "month", "total"]).pipe(Flag.withDescription("day, month (UTC) or total")),
    amount: Flag.Finite("usd").pipe(Flag.withDescription("The limit in dollars"), Flag.optional),
    clear: Flag.Boolean("clear").pipe(Flag.withDefault(false), Flag.withDescription("Remove the limit"))
  },
  (input) =>
    Effect.gen(function* () {
      if (Option.isSome(input.amount) === input.clear) return yield* new CliUsageError({ message: "give exactly one of --usd <amount> or --clear" })
      const status = yield* withBilling((billing) =>
        billing.setSpendLimit({ projectId: input.project, keyId: Option.getOrUndefined(input.key), period: input.period, limitUsd: Option.getOrNull(input.amount) })
      )
      yield* emit(status, statusText)
    })
).pipe(Command.withDescription("Set or clear a spend limit of a project or key"))

const rateLimit = Command.make(
  "rate-limit",
  {
    project: projectFlag,
    key: keyFlag,
    model: Flag.String("model").pipe(Flag.withDescription("Limit this model within the project"), Flag.optional),
    rpm: Flag.Int("rpm").pipe(Flag.withDescription("Requests per minute"), Flag.optional),
    tpm: Flag.Int("tpm").pipe(Flag.withDescription("Tokens per minute"), Flag.optional)
  },
  (input) =>
    withBilling((billing) =>
      Effect.flatMap(
        billing.setRateLimit({
          projectId: input.project,
          keyId: Option.getOrUndefined(input.key),
          model: Option.getOrUndefined(input.model),
          rpm: Option.getOrNull(input.rpm),
          tpm: Option.getOrNull(input.tpm)
        }),
        (s) => emit(s, statusText)
      )
    )
).pipe(Command.withDescription("Set RPM/TPM of a project, key or model (neither flag: clear)"))

export const billingCommand = Command.make("billing").pipe(
  Command.withDescription("Credit balances, spend limits and rate limits"),
  Command.withSubcommands([show, grant, ledger, limit, rateLimit])
)
