/**
 * Which IP addresses the gateway may connect to when it fetches a URL a client gave it.
 * Pure functions over textual addresses, so every other part of the fetcher (and its tests)
 * shares one definition of "public".
 *
 * IPv4 is checked against the IANA special-purpose registry; IPv6 must be global unicast
 * (2000::/3) outside the special ranges, and forms that carry an IPv4 address (mapped,
 * translated, NAT64, 6to4) are judged by that IPv4 address.
 */

export interface ForbiddenRange {
  /** What the address is, for error messages: "loopback", "cloud metadata", … */
  readonly label: string
  /**
   * Private-network ranges become reachable with `fetch.allow_private_networks`. The others
   * (cloud metadata, multicast, unspecified, documentation, reserved) never are: nothing
   * legitimate lives there, and metadata services hand out credentials.
   */
  readonly privateNetwork: boolean
}

const range = (label: string, privateNetwork: boolean): ForbiddenRange => ({ label, privateNetwork })

const loopback = range("loopback", true)
const privateUse = range("private", true)
const linkLocal = range("link-local", true)
const uniqueLocal = range("unique-local", true)
const cgnat = range("shared address space (CGNAT)", true)
const metadata = range("cloud metadata", false)
const unspecified = range("unspecified", false)
const multicast = range("multicast", false)
const broadcast = range("broadcast", false)
const documentation = range("documentation", false)
const reserved = range("reserved", false)
const unparseable = range("not a valid IP address", false)

/** Instance-metadata and platform endpoints of the major clouds, refused even on private networks. */
const metadataAddresses = new Set([
  "169.254.169.254", // AWS, GCP, Azure, OCI, DigitalOcean, …
  "169.254.170.2", // AWS ECS task metadata
  "169.254.170.23", // AWS EKS pod identity
  "100.100.100.200", // Alibaba Cloud
  "168.63.129.16", // Azure WireServer (a public address)
  "192.0.0.192", // Oracle Cloud Classic
  "fd00:ec2::254", // AWS IMDS over IPv6
  "fd00:ec2::23" // AWS EKS pod identity over IPv6
])

/** Dotted decimal only, as URL parsing and DNS produce; any other spelling is not an address. */
export const parseIpv4 = (text: string): number | undefined => {
  const parts = text.split(".")
  if (parts.length !== 4) return undefined
  let value = 0
  for (const part of parts) {
    if (!/^(0|[1-9][0-9]{0,2})$/.test(part)) return undefined
    const octet = Number(part)
    if (octet > 255) return undefined
    value = value * 256 + octet
  }
  return value
}

/** Eight 16-bit groups, or undefined. Accepts `::` compression, a dotted IPv4 tail, brackets and a zone. */
export const parseIpv6 = (text: string): ReadonlyArray<number> | undefined => {
  let input = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text
  const zone = input.indexOf("%")
  if (zone !== -1) input = input.slice(0, zone)
  if (input === "" || !input.includes(":")) return undefined
  const halves = input.split("::")
  if (halves.length > 2) return undefined
  const groups = (half: string): Array<number> | undefined => {
    if (half === "") return []
    const out: Array<number> = []
    const pieces = half.split(":")
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIpv4(piece)
        if (v4 === undefined) return undefined
        out.push(Math.floor(v4 / 65536), v4 % 65536)
      } else if (/^[0-9a-fA-F]{1,4}$/.test(piece)) {
        out.push(parseInt(piece, 16))
      } else {
        return undefined
      }
    }
    return out
  }
  const head = groups(halves[0]!)
  const tail = halves.length === 2 ? groups(halves[1]!) : []
  if (head === undefined || tail === undefined) return undefined
  // A dotted tail is only valid at the very end of the address.
  if (halves.length === 2 && halves[0]!.includes(".")) return undefined
  if (halves.length === 1) return head.length === 8 ? head : undefined
  const missing = 8 - head.length - tail.length
  if (missing < 1) return undefined
  return [...head, ...Array.from({ length: missing }, () => 0), ...tail]
}

const v4 = (cidr: string, value: ForbiddenRange) => {
  const [base, bits] = cidr.split("/")
  const size = 2 ** (32 - Number(bits))
  return { start: parseIpv4(base!)!, size, value }
}

const ipv4Ranges = [
  v4("0.0.0.0/8", unspecified),
  v4("10.0.0.0/8", privateUse),
  v4("100.64.0.0/10", cgnat),
  v4("127.0.0.0/8", loopback),
  v4("169.254.0.0/16", linkLocal),
  v4("172.16.0.0/12", privateUse),
  v4("192.0.0.0/24", range("IETF protocol assignment", false)),
  v4("192.0.2.0/24", documentation),
  v4("192.88.99.0/24", range("6to4 relay anycast", false)),
  v4("192.168.0.0/16", privateUse),
  v4("198.18.0.0/15", range("benchmarking", false)),
  v4("198.51.100.0/24", documentation),
  v4("203.0.113.0/24", documentation),
  v4("224.0.0.0/4", multicast),
  v4("240.0.0.0/4", reserved)
]

const classifyIpv4 = (value: number, text: string): ForbiddenRange | undefined => {
  if (metadataAddresses.has(text)) return metadata
  if (value === 0xffffffff) return broadcast
  return ipv4Ranges.find((r) => value >= r.start && value < r.start + r.size)?.value
}

const ipv4Text = (hi: number, lo: number) => [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff].join(".")

const v6 = (cidr: string, value: ForbiddenRange) => {
  const [base, bits] = cidr.split("/")
  return { groups: parseIpv6(base!)!, bits: Number(bits), value }
}

const inPrefix = (groups: ReadonlyArray<number>, prefix: ReadonlyArray<number>, bits: number): boolean => {
  for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff
    if ((groups[i]! & mask) !== (prefix[i]! & mask)) return false
  }
  return true
}

const ipv6Ranges = [
  v6("::1/128", loopback),
  v6("::/128", unspecified),
  v6("::/96", range("IPv4-compatible (deprecated)", false)),
  v6("100::/64", range("discard-only", false)),
  v6("64:ff9b:1::/48", range("local-use NAT64", true)),
  v6("2001:db8::/32", documentation),
  v6("3fff::/20", documentation),
  v6("2001::/32", range("Teredo tunnel", false)),
  v6("2001::/23", range("IETF protocol assignment", false)),
  v6("5f00::/16", range("SRv6 segment identifier", false)),
  v6("fe80::/10", linkLocal),
  v6("fec0::/10", range("site-local", true)),
  v6("fc00::/7", uniqueLocal),
  v6("ff00::/8", multicast)
]

/** Prefixes whose last 32 bits (or, for 6to4, bits 16–47) are an IPv4 address the packet ends up at. */
const embeddedIpv4 = (g: ReadonlyArray<number>): string | undefined => {
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0)
  if (zeros(0, 5) && g[5] === 0xffff) return ipv4Text(g[6]!, g[7]!) // ::ffff:a.b.c.d, IPv4-mapped
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return ipv4Text(g[6]!, g[7]!) // ::ffff:0:a.b.c.d, SIIT
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return ipv4Text(g[6]!, g[7]!) // 64:ff9b::/96, NAT64
  if (g[0] === 0x2002) return ipv4Text(g[1]!, g[2]!) // 2002::/16, 6to4
  return undefined
}

const canonicalIpv6 = (g: ReadonlyArray<number>) => g.map((x) => x.toString(16)).join(":")
const metadataIpv6 = new Set(
  [...metadataAddresses].flatMap((a) => {
    const groups = a.includes(":") ? parseIpv6(a) : undefined
    return groups === undefined ? [] : [canonicalIpv6(groups)]
  })
)

const classifyIpv6 = (groups: ReadonlyArray<number>): ForbiddenRange | undefined => {
  const embedded = embeddedIpv4(groups)
  if (embedded !== undefined) return classifyIpv4(parseIpv4(embedded)!, embedded)
  if (metadataIpv6.has(canonicalIpv6(groups))) return metadata
  const special = ipv6Ranges.find((r) => inPrefix(groups, r.groups, r.bits))
  if (special !== undefined) return special.value
  // Everything outside global unicast is unassigned or reserved.
  return (groups[0]! & 0xe000) === 0x2000 ? undefined : reserved
}

/** The forbidden range `ip` falls in, or undefined for a public address. Unparseable text is forbidden. */
export const classifyAddress = (ip: string): ForbiddenRange | undefined => {
  const value = parseIpv4(ip)
  if (value !== undefined) return classifyIpv4(value, ip)
  const groups = parseIpv6(ip)
  return groups === undefined ? unparseable : classifyIpv6(groups)
}

export interface AddressPolicyOptions {
  /** `fetch.allow_private_networks`: private, loopback and link-local become reachable. */
  readonly allowPrivateNetworks?: boolean
}

/** Whether the gateway must refuse to connect to `ip` on a client's behalf. */
export const isForbiddenAddress = (ip: string, options: AddressPolicyOptions = {}): boolean => {
  const found = classifyAddress(ip)
  return found !== undefined && !(found.privateNetwork && options.allowPrivateNetworks === true)
}
