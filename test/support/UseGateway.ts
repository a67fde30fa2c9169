import { afterAll, beforeAll, beforeEach } from "@effect/vitest"
import { FakeUpstream } from "./FakeUpstream.ts"
import { makeTestStorage, type TestStorage } from "./TestDatabase.ts"
import { type CreatedKey, type KeyOptions, startGateway, type StartOptions, type TestGateway } from "./TestGateway.ts"

/**
 * The usual set-up of an HTTP test file, registered with vitest: fresh storage, the fake
 * upstreams its gateway.yaml points at, the whole gateway and a key, all started in `beforeAll`
 * and stopped in `afterAll`; every upstream is reset before each test. A file states only what
 * is special about it:
 *
 * ```ts
 * const gw = useGateway({
 *   config: ({ upstream }) => ({ providers: [{ id: "openai", kind: "openai", base_url: `${upstream.url}/v1`, api_key: "k" }], models: [...] }),
 *   key: { withUser: true }
 * })
 * const { upstream } = gw
 * it("...", async () => {
 *   upstream.reply({ kind: "json", status: 200, body: openAiCompletion() })
 *   const res = await gw.postJson("/v1/chat/completions", { model: "gpt-test", messages })
 * })
 * ```
 *
 * The fake upstreams exist at once (so they can be destructured at the top of `describe`) and
 * listen from `beforeAll` on; the other fields are read inside hooks and tests, once `beforeAll`
 * has filled them.
 */
export interface UseGatewayOptions<Name extends string> extends Omit<StartOptions, "storage" | "config"> {
  /**
   * gateway.yaml as an object, or a function of the fake upstreams the file needs: then each
   * name in `upstreams` (by default just `upstream`) is a fake upstream started before the gateway.
   */
  readonly config?: Readonly<Record<string, unknown>> | ((upstreams: Readonly<Record<Name, FakeUpstream>>) => unknown)
  readonly upstreams?: ReadonlyArray<Name>
  /** The key made for the tests (`key`); `false` makes none. */
  readonly key?: KeyOptions | false
}

export interface PostOptions {
  /** The secret to send instead of the fixture's key. */
  readonly key?: string
  readonly headers?: Record<string, string>
  readonly signal?: AbortSignal
}

export interface GatewayFixture<Name extends string> {
  readonly storage: TestStorage
  readonly gw: TestGateway
  /** The gateway's base URL, `http://127.0.0.1:<port>`. */
  readonly url: string
  readonly runtime: TestGateway["runtime"]
  readonly key: CreatedKey
  /** The first (usually the only) fake upstream; it listens from `beforeAll` on. */
  readonly upstream: FakeUpstream
  readonly upstreams: Readonly<Record<Name, FakeUpstream>>
  readonly createKey: TestGateway["createKey"]
  /** `{ authorization: "Bearer <secret>" }`, for the fixture's key unless another secret is given. */
  readonly auth: (secret?: string) => { readonly authorization: string }
  /**
   * POSTs `body` (a string as is, anything else as JSON) to `path` with a JSON content type and
   * the fixture's key. The third argument is another key's secret, or options: `key`, `headers`
   * (added, and overriding those two) and `signal`.
   */
  readonly postJson: (path: string, body: unknown, keyOrOptions?: string | PostOptions) => Promise<Response>
}

const notYet = (field: string): never => {
  throw new Error(`useGateway: ${field} is read before beforeAll started the gateway (read it inside a hook or a test)`)
}

export const useGateway = <const Name extends string = "upstream">(options: UseGatewayOptions<Name> = {}): GatewayFixture<Name> => {
  const { config, upstreams: upstreamNames, key: keyOptions = {}, ...start } = options
  const names: ReadonlyArray<Name> = upstreamNames ?? (typeof config === "function" ? ["upstream" as Name] : [])
  let storage: TestStorage | undefined
  let gw: TestGateway | undefined
  let key: CreatedKey | undefined
  const upstreams = Object.fromEntries(names.map((name) => [name, new FakeUpstream()])) as Record<Name, FakeUpstream>
  const all = Object.values<FakeUpstream>(upstreams)
  const started = () => (gw ?? notYet("the gateway"))

  beforeAll(async () => {
    storage = await makeTestStorage()
    for (const upstream of all) await upstream.start()
    gw = await startGateway({ ...start, storage, config: typeof config === "function" ? config(upstreams) : config })
    if (keyOptions !== false) key = await gw.createKey(keyOptions)
  })
  afterAll(async () => {
    await gw?.stop()
    await Promise.all(all.map((upstream) => upstream.stop()))
    await storage?.cleanup()
  })
  beforeEach(() => {
    for (const upstream of all) upstream.reset()
  })

  const fixture: GatewayFixture<Name> = {
    get storage() {
      return storage ?? notYet("storage")
    },
    get gw() {
      return started()
    },
    get url() {
      return started().url
    },
    get runtime() {
      return started().runtime
    },
    get key() {
      if (keyOptions === false) throw new Error("useGateway: this file asked for no key (`key: false`); make one with createKey")
      return key ?? notYet("key")
    },
    get upstream() {
      const first = all[0]
      if (first === undefined) throw new Error("useGateway: this gateway has no fake upstream (give `config` as a function of the upstreams)")
      return first
    },
    upstreams,
    createKey: (opts) => started().createKey(opts),
    auth: (secret) => ({ authorization: `Bearer ${secret ?? fixture.key.secret}` }),
    postJson: (path, body, keyOrOptions = {}) => {
      const options: PostOptions = typeof keyOrOptions === "string" ? { key: keyOrOptions } : keyOrOptions
      return fetch(`${fixture.url}${path}`, {
        method: "POST",
        headers: { ...fixture.auth(options.key), "content-type": "application/json", ...options.headers },
        body: typeof body === "string" ? body : JSON.stringify(body),
        ...(options.signal === undefined ? {} : { signal: options.signal })
      })
    }
  }
  return fixture
}
