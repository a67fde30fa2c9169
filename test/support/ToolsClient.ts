import { Validator } from "@cfworker/json-schema"
import { expect } from "@effect/vitest"
import type { GatewayFixture } from "./UseGateway.ts"

export interface ListedTool {
  readonly id: string
  readonly object: string
  readonly description: string
  readonly parameters: Record<string, unknown>
}

/**
 * Calls the tools endpoints the way a client that reads `GET /v1/tools` would: every body a
 * test sends is first checked against the JSON Schema the gateway lists for that tool, so the
 * listed schemas are proven to describe the requests the gateway accepts (and to refuse the
 * ones it refuses).
 */
export const toolsClient = <Name extends string>(gw: GatewayFixture<Name>) => {
  let validators: Map<string, Validator> | undefined

  const list = async (secret?: string): Promise<Response> => fetch(`${gw.url}/v1/tools`, { headers: gw.auth(secret) })

  const listed = async (): Promise<ReadonlyArray<ListedTool>> => {
    const res = await list()
    expect(res.status).toBe(200)
    const body = (await res.json()) as { object: string; data: Array<ListedTool> }
    expect(body.object).toBe("list")
    return body.data
  }

  const validatorFor = async (id: string): Promise<Validator | undefined> => {
    validators ??= new Map((await listed()).map((tool) => [tool.id, new Validator(tool.parameters as never, "2020-12", false)]))
    return validators.get(id)
  }

  /** What the listed schema says of `body`: true when valid. */
  const schemaAccepts = async (id: string, body: unknown): Promise<boolean> => {
    const validator = await validatorFor(id)
    if (validator === undefined) throw new Error(`the tool ${id} is not listed`)
    return validator.validate(body).valid
  }

  /** POSTs a body the listed schema accepts. */
  const call = async (id: string, body: Record<string, unknown>, secret?: string): Promise<Response> => {
    expect(await schemaAccepts(id, body), `the listed schema of ${id} accepts ${JSON.stringify(body)}`).toBe(true)
    return gw.postJson(`/v1/tools/${id}`, body, secret === undefined ? {} : { key: secret })
  }

  /** POSTs a body the listed schema refuses, and expects the gateway to refuse it too (400 naming `param`). */
  const callInvalid = async (id: string, body: Record<string, unknown>, param: string): Promise<void> => {
    expect(await schemaAccepts(id, body), `the listed schema of ${id} refuses ${JSON.stringify(body)}`).toBe(false)
    const res = await gw.postJson(`/v1/tools/${id}`, body)
    expect(res.status).toBe(400)
    const error = ((await res.json()) as { error: { param: string | null; type: string } }).error
    expect(error.type).toBe("invalid_request_error")
    expect(error.param).toBe(param)
  }

  return { list, listed, call, callInvalid, schemaAccepts }
}

export interface ErrorBody {
  readonly error: { readonly message: string; readonly type: string; readonly param: string | null; readonly code: string | null }
}

export const errorOf = async (res: Response): Promise<ErrorBody["error"]> => ((await res.json()) as ErrorBody).error
