import { existsSync, readFileSync, statSync } from "node:fs"
import * as NodePath from "node:path"
import { fileURLToPath } from "node:url"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as SchemaIssue from "effect/SchemaIssue"
import { parseDocument } from "yaml"
import { decisionModelProblem } from "../../Domain/DecisionModel.ts"
import { GatewayConfig } from "../../Domain/GatewayConfig.ts"
import { profileFor, profileNames } from "../../Providers/OpenAiCompatible/Profiles.ts"
import { AppConfig } from "./AppConfig.ts"
import { declaredImageKeys, imageModelProblem, withImageFamilies } from "./ImageModelCheck.ts"
import { entryOf, lineOf, pathSegments, schemaProblem } from "./ConfigErrorHints.ts"
import { keyVariables } from "./ProviderKeys.ts"
import { replaceReferences } from "./Interpolation.ts"

/** A config file that cannot be used. `toString` is the single line printed at start-up. */
export class ConfigLoadError extends Data.TaggedError("ConfigLoadError")<{
  readonly file: string
  readonly path: string
  readonly problem: string
  /** The file's line, when read from a file. */
  readonly line?: number
  /** The entry the path is in (`provider 'vllm'`), when it has an id. */
  readonly entry?: string
}> {
  override get message(): string {
    const where = this.line === undefined ? this.file : `${this.file}:${this.line}`
    const path = this.entry === undefined ? this.path : `${this.path} (${this.entry})`
    return this.path === "" ? `${where}: ${this.problem}` : `${where}: ${path}: ${this.problem}`
  }
  override toString(): string {
    return this.message
  }
}

export interface LoadedConfig {
  readonly file: string
  readonly config: GatewayConfig
  /** Unix seconds: the file's modification time, the default `created` of catalogue entries. */
  readonly modifiedAt: number
  /** Provider id -> the environment variable its `api_key` reads; for messages only. */
  readonly keyVariables?: Readonly<Record<string, string>>
}

export class GatewayConfigFile extends Context.Service<GatewayConfigFile, LoadedConfig>()("gateway/GatewayConfigFile") {
  static readonly layer = Layer.effect(
    GatewayConfigFile,
    Effect.gen(function* () {
      const app = yield* AppConfig
      return GatewayConfigFile.of(yield* loadConfigFile(resolveConfigPath(app.configPath), process.env))
    })
  )
  static readonly fromConfig = (config: GatewayConfig, file = "<inline>", raw?: unknown) =>
    Layer.succeed(GatewayConfigFile, GatewayConfigFile.of({ file, config, modifiedAt: 0, keyVariables: keyVariables(raw) }))
}

const shippedExample = fileURLToPath(new URL("../../../gateway.example.yaml", import.meta.url))

/** GATEWAY_CONFIG if set, else ./gateway.yaml when present, else the shipped example. */
export const resolveConfigPath = (explicit: string | undefined): string => {
  if (explicit !== undefined && explicit !== "") return explicit
  const local = NodePath.resolve("gateway.yaml")
  return existsSync(local) ? local : shippedExample
}

type Path = ReadonlyArray<PropertyKey>

export const formatPath = (path: Path): string =>
  path.reduce<string>(
    (acc, key) => (typeof key === "number" ? `${acc}[${key}]` : acc === "" ? String(key) : `${acc}.${String(key)}`),
    ""
  )

/**
 * Replaces `${VAR}` and `${VAR:-default}` inside string values (never in keys), after YAML
 * parsing so an environment value can never change the document's structure. `$$` is a `$`.
 */
export const interpolate = (
  value: unknown,
  env: Readonly<Record<string, string | undefined>>,
  path: Array<PropertyKey> = []
): { readonly value: unknown } | { readonly missing: string; readonly path: Path } => {
  if (typeof value === "string") {
    let missing: string | undefined
    const replaced = replaceReferences(value, ({ name, fallback }) => {
      const found = env[name]
      if (found !== undefined && found !== "") return found
      if (fallback !== undefined) return fallback
      missing ??= name
      return ""
    })
    return missing === undefined ? { value: replaced } : { missing, path }
  }
  if (Array.isArray(value)) {
    const out: Array<unknown> = []
    for (let i = 0; i < value.length; i++) {
      const result = interpolate(value[i], env, [...path, i])
      if (!("value" in result)) return result
      out.push(result.value)
    }
    return { value: out }
  }
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {}
    for (const [key, item] of Object.entries(value)) {
      const result = interpolate(item, env, [...path, key])
      if (!("value" in result)) return result
      out[key] = result.value
    }
    return { value: out }
  }
  return { value }
}

/** Decodes and cross-checks a parsed document; pure so tests can drive it without files. */
export const decodeConfig = (file: string, raw: unknown, env: Readonly<Record<string, string | undefined>>) =>
  Effect.gen(function* () {
    const interpolated = interpolate(raw ?? {}, env)
    if (!("value" in interpolated)) {
      return yield* new ConfigLoadError({
        file,
        path: formatPath(interpolated.path),
        problem: `environment variable ${interpolated.missing} is not set (write \${${interpolated.missing}:-} to allow it to be empty)`
      })
    }
    const config = yield* Schema.decodeUnknownEffect(GatewayConfig)(interpolated.value, {
      onExcessProperty: "error"
    }).pipe(
      Effect.mapError((error) => {
        const first = SchemaIssue.makeFormatterStandardSchemaV1()(error.issue).issues[0]
        const path = (first?.path ?? []).map((p) => (typeof p === "object" && p !== null && "key" in p ? p.key : p))
        const message = first?.message ?? "invalid"
        const problem = schemaProblem(error, path as Path, message, interpolated.value)
        return new ConfigLoadError({ file, path: formatPath(path as Path), problem })
      })
    )
    const problem = crossCheck(config)
    if (problem !== undefined) return yield* new ConfigLoadError({ file, ...problem })
    return withImageFamilies(config, declaredImageKeys(interpolated.value))
  })

/** Anthropic has no token probabilities; some compatible servers refuse the fields (their profile says so). */
const returnsLogprobs = (provider: GatewayConfig["providers"][number] | undefined): boolean =>
  provider !== undefined &&
  provider.kind !== "anthropic" &&
  provider.kind !== "mock" &&
  !(provider.kind === "openai-compatible" && profileFor(provider.profile).unsupported.includes("logprobs"))

const crossCheck = (config: GatewayConfig): { path: string; problem: string } | undefined => {
  const providers = new Map<string, (typeof config.providers)[number]>()
  for (const [i, provider] of config.providers.entries()) {
    if (providers.has(provider.id)) return { path: `providers[${i}].id`, problem: `duplicate provider id "${provider.id}"` }
    providers.set(provider.id, provider)
    if (provider.kind !== "mock" && provider.base_url === "") {
      return { path: `providers[${i}].base_url`, problem: `missing: a provider of kind ${provider.kind} needs the address of its API` }
    }
    if (provider.kind === "openai-compatible" && provider.profile !== undefined && !profileNames.includes(provider.profile)) {
      return {
        path: `providers[${i}].profile`,
        problem: `unknown profile "${provider.profile}" (known: ${profileNames.join(", ")})`
      }
    }
    if (provider.kind !== "openai-compatible" && provider.profile !== undefined) {
      return { path: `providers[${i}].profile`, problem: `profiles apply only to kind openai-compatible` }
    }
  }
  const models = new Map<string, (typeof config.models)[number]>()
  for (const [i, model] of config.models.entries()) {
    if (models.has(model.id)) return { path: `models[${i}].id`, problem: `duplicate model id "${model.id}"` }
    models.set(model.id, model)
    for (const [j, deployment] of model.deployments.entries()) {
      const provider = providers.get(deployment.provider)
      if (provider === undefined) {
        return { path: `models[${i}].deployments[${j}].provider`, problem: `unknown provider "${deployment.provider}" (known: ${[...providers.keys()].join(", ") || "none"})` }
      }
      if (provider.kind === "mock" && model.kind !== "chat" && model.kind !== "embedding") {
        return {
          path: `models[${i}].deployments[${j}].provider`,
          problem: `provider "${provider.id}" is of kind mock, which serves chat and embedding models only`
        }
      }
      if (model.kind === "embedding" && provider.kind === "anthropic") {
        return {
          path: `models[${i}].deployments[${j}].provider`,
          problem: `provider "${provider.id}" is of kind anthropic, which has no embeddings API`
        }
      }
    }
    if (model.image !== undefined && model.kind !== "image") {
      return { path: `models[${i}].image`, problem: `image options apply only to models of kind image` }
    }
    if (model.image !== undefined && model.image.qualities.length > 0 && model.image.resolutions.length > 0) {
      return { path: `models[${i}].image`, problem: `a model offers qualities or resolutions, never both` }
    }
    const decision = decisionModelProblem(model, (id) => returnsLogprobs(providers.get(id)))
    if (decision !== undefined) return { path: `models[${i}].${decision.field}`, problem: decision.problem }
    const image = imageModelProblem(model, i, providers)
    if (image !== undefined) return image
  }
  for (const [i, model] of config.models.entries()) {
    for (const [j, fallback] of model.fallbacks.entries()) {
      const target = models.get(fallback)
      if (target === undefined) return { path: `models[${i}].fallbacks[${j}]`, problem: `unknown model "${fallback}"` }
      if (fallback === model.id) return { path: `models[${i}].fallbacks[${j}]`, problem: `a model cannot fall back to itself` }
      if (target.kind !== model.kind) {
        return {
          path: `models[${i}].fallbacks[${j}]`,
          problem: `fallback "${fallback}" is a ${target.kind} model, not ${model.kind}`
        }
      }
    }
  }
  return undefined
}

export const loadConfigFile = (file: string, env: Readonly<Record<string, string | undefined>>) =>
  Effect.gen(function* () {
    const text = yield* Effect.try({
      try: () => readFileSync(file, "utf8"),
      catch: (cause) =>
        new ConfigLoadError({
          file,
          path: "",
          problem: `cannot be read (${(cause as NodeJS.ErrnoException).code ?? String(cause)})`
        })
    })
    const document = parseDocument(text, { prettyErrors: false })
    const yamlError = document.errors[0]
    if (yamlError !== undefined) {
      const before = text.slice(0, yamlError.pos[0]).split("\n")
      return yield* new ConfigLoadError({
        file,
        path: `line ${before.length}:${before.at(-1)!.length + 1}`,
        problem: `invalid YAML: ${yamlError.message.split("\n")[0]}`
      })
    }
    const raw: unknown = document.toJS()
    const config = yield* decodeConfig(file, raw, env).pipe(
      Effect.mapError((error) => {
        if (error.path === "" || error.path.startsWith("line ")) return error
        const segments = pathSegments(error.path)
        const line = lineOf(document, text, segments)
        const entry = entryOf(raw, segments)
        return new ConfigLoadError({ ...error, ...(line === undefined ? {} : { line }), ...(entry === undefined ? {} : { entry }) })
      })
    )
    const modifiedAt = Math.floor(statSync(file).mtimeMs / 1000)
    return { file, config, modifiedAt, keyVariables: keyVariables(raw) } satisfies LoadedConfig
  })
