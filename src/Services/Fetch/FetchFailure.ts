import { GatewayError } from "../../Domain/GatewayError.ts"

/**
 * The `code` of every error the fetcher reports. All of them are client mistakes (400): the
 * client chose the URL, so an unreachable or misbehaving target is theirs to fix.
 */
export const UrlFetchCode = {
  invalidUrl: "invalid_url",
  unsupportedScheme: "unsupported_url_scheme",
  credentials: "url_credentials_not_allowed",
  forbiddenAddress: "url_forbidden_address",
  tooManyRedirects: "url_too_many_redirects",
  tooLarge: "url_response_too_large",
  timeout: "url_timeout",
  badStatus: "url_bad_status",
  unreachable: "url_unreachable"
} as const
export type UrlFetchCode = (typeof UrlFetchCode)[keyof typeof UrlFetchCode]

/** Where in a fetch a problem showed up; redirects are named so the client can see which hop failed. */
export interface Hop {
  readonly param: string
  /** 0 for the URL the client sent, n for the target of the n-th redirect. */
  readonly redirects: number
}

const subject = (hop: Hop) =>
  hop.redirects === 0
    ? `The URL in ${hop.param}`
    : `The URL in ${hop.param} led, through ${hop.redirects} redirect${hop.redirects === 1 ? "" : "s"}, to a URL that`

const fail = (hop: Hop, text: string, code: UrlFetchCode) => GatewayError.invalid(`${subject(hop)} ${text}`, hop.param, code)

export const formatBytes = (bytes: number): string => {
  const mib = bytes / (1024 * 1024)
  if (mib >= 1 && Number.isInteger(mib)) return `${mib} MB`
  if (bytes >= 1024 && Number.isInteger(bytes / 1024)) return `${bytes / 1024} KB`
  return `${bytes} bytes`
}

const formatMs = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} seconds` : `${ms} ms`)

export const FetchFailure = {
  tooLong: (hop: Hop, max: number) =>
    fail(hop, `is longer than ${max} characters.`, UrlFetchCode.invalidUrl),
  malformed: (hop: Hop) => fail(hop, "is not a valid absolute URL.", UrlFetchCode.invalidUrl),
  scheme: (hop: Hop, scheme: string) =>
    fail(hop, `uses the scheme '${scheme}'; only http and https URLs can be fetched.`, UrlFetchCode.unsupportedScheme),
  credentials: (hop: Hop) =>
    fail(hop, "contains a user name or password; credentials in URLs are not accepted.", UrlFetchCode.credentials),
  forbidden: (hop: Hop, host: string, label: string, literal: boolean) =>
    fail(
      hop,
      `${literal ? `points to ${host},` : `has the host '${host}', which resolves to`} a non-public address (${label}); only addresses on the public internet can be fetched.`,
      UrlFetchCode.forbiddenAddress
    ),
  notResolved: (hop: Hop, host: string) =>
    fail(hop, `has the host '${host}', which could not be resolved.`, UrlFetchCode.unreachable),
  unreachable: (hop: Hop, host: string, why: string) =>
    fail(hop, `could not be fetched: ${host} ${why}.`, UrlFetchCode.unreachable),
  broken: (hop: Hop, why: string) => fail(hop, `could not be fetched: ${why}.`, UrlFetchCode.unreachable),
  status: (hop: Hop, status: number) =>
    fail(hop, `could not be fetched: the URL answered ${status}.`, UrlFetchCode.badStatus),
  redirectWithoutLocation: (hop: Hop, status: number) =>
    fail(hop, `could not be fetched: the URL answered ${status} without a Location header.`, UrlFetchCode.badStatus),
  tooManyRedirects: (param: string, max: number) =>
    GatewayError.invalid(
      `The URL in ${param} redirected more than ${max} time${max === 1 ? "" : "s"}; the gateway stopped following it.`,
      param,
      UrlFetchCode.tooManyRedirects
    ),
  tooLarge: (hop: Hop, max: number) =>
    fail(hop, `answered with more than ${formatBytes(max)}, the limit for fetched content.`, UrlFetchCode.tooLarge),
  badEncoding: (hop: Hop, encoding: string) =>
    fail(hop, `answered with the content encoding '${encoding}', which the gateway cannot decode.`, UrlFetchCode.badStatus),
  timeout: (param: string, ms: number) =>
    GatewayError.invalid(
      `The URL in ${param} could not be fetched within ${formatMs(ms)}.`,
      param,
      UrlFetchCode.timeout
    )
}
