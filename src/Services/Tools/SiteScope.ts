import { isIP } from "node:net"
import { httpUrl } from "./Html/PageLinks.ts"

/** Which URLs belong to the site a map started from. */
export interface SiteScope {
  readonly contains: (url: URL) => boolean
}

const bareHost = (hostname: string) => hostname.replace(/^www\./, "")
const isAddress = (hostname: string) => isIP(hostname.replace(/^\[|\]$/g, "")) !== 0

/** `80` for http and `443` for https both count as "the default port", so http and https pages are one site. */
const portKey = (url: URL) =>
  url.port === "" || (url.protocol === "http:" && url.port === "80") || (url.protocol === "https:" && url.port === "443") ? "" : url.port

/**
 * The start URL's site: the same host (with or without `www.`), on the same port (http and
 * https alike); with `includeSubdomains`, every host under it too. An IP-address host has no
 * subdomains.
 */
export const siteScope = (start: URL, includeSubdomains: boolean): SiteScope => {
  const host = bareHost(start.hostname)
  const port = portKey(start)
  const subdomains = includeSubdomains && !isAddress(start.hostname)
  return {
    contains: (url) => {
      if (portKey(url) !== port) return false
      const candidate = bareHost(url.hostname)
      return candidate === host || (subdomains && candidate.endsWith(`.${host}`))
    }
  }
}

/**
 * A URL as the map reports it: absolute http(s), no fragment, host lower-cased and the
 * default port dropped (the WHATWG parser does both), and an empty query removed.
 */
export const normaliseUrl = (raw: string, base?: URL): URL | undefined => {
  const url = httpUrl(raw, base)
  if (url === undefined) return undefined
  // `?` with nothing after it reads as an empty search but stays in the href.
  if (url.search === "" && url.href.endsWith("?")) url.search = ""
  return url
}
