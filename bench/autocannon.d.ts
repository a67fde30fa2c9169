/** The part of autocannon 9's programmatic API the benchmark uses (the package ships no types). */
declare module "autocannon" {
  import type { EventEmitter } from "node:events"

  export interface Client extends EventEmitter {}

  export interface Options {
    readonly url: string
    readonly connections?: number
    readonly duration?: number
    readonly method?: string
    readonly body?: string | Buffer
    readonly headers?: Record<string, string>
    readonly timeout?: number
    readonly setupClient?: (client: Client) => void
    readonly verifyBody?: (body: string) => boolean
  }

  export interface Result {
    readonly errors: number
    readonly timeouts: number
    readonly non2xx: number
    readonly mismatches: number
    readonly resets: number
    readonly duration: number
    readonly requests: { readonly total: number }
  }

  export interface Instance extends EventEmitter {
    stop(): void
  }

  function autocannon(options: Options, callback: (error: Error | null, result: Result) => void): Instance
  export default autocannon
}
