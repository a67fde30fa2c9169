import { describe, expect, it } from "@effect/vitest"
import {
  classifyAddress,
  isForbiddenAddress,
  parseIpv4,
  parseIpv6
} from "../../../src/Services/Fetch/AddressPolicy.ts"

type Row = readonly [address: string, label: string | null, reachableOnPrivateNetworks: boolean]

// label null = public. The third column says whether allow_private_networks opens the address.
const table: ReadonlyArray<Row> = [
  // IPv4 public
  ["8.8.8.8", null, true],
  ["1.1.1.1", null, true],
  ["93.184.215.14", null, true],
  ["100.63.255.255", null, true], // just below CGNAT
  ["100.128.0.0", null, true], // just above CGNAT
  ["172.15.255.255", null, true], // just below 172.16/12
  ["172.32.0.0", null, true], // just above 172.16/12
  ["192.167.255.255", null, true],
  ["192.169.0.0", null, true],
  ["198.17.255.255", null, true],
  ["198.20.0.0", null, true],
  ["223.255.255.255", null, true],
  ["11.0.0.1", null, true],
  ["126.255.255.255", null, true],
  ["128.0.0.0", null, true],
  ["169.253.255.255", null, true],
  ["169.255.0.0", null, true],
  // IPv4 private networks
  ["127.0.0.1", "loopback", true],
  ["127.255.255.254", "loopback", true],
  ["10.0.0.1", "private", true],
  ["10.255.255.255", "private", true],
  ["172.16.0.0", "private", true],
  ["172.31.255.255", "private", true],
  ["192.168.1.1", "private", true],
  ["169.254.0.1", "link-local", true],
  ["100.64.0.1", "shared address space (CGNAT)", true],
  ["100.127.255.255", "shared address space (CGNAT)", true],
  // IPv4 never reachable
  ["169.254.169.254", "cloud metadata", false],
  ["169.254.170.2", "cloud metadata", false],
  ["100.100.100.200", "cloud metadata", false],
  ["168.63.129.16", "cloud metadata", false],
  ["0.0.0.0", "unspecified", false],
  ["0.1.2.3", "unspecified", false],
  ["255.255.255.255", "broadcast", false],
  ["224.0.0.1", "multicast", false],
  ["239.255.255.250", "multicast", false],
  ["240.0.0.1", "reserved", false],
  ["192.0.2.1", "documentation", false],
  ["198.51.100.7", "documentation", false],
  ["203.0.113.9", "documentation", false],
  ["198.18.0.1", "benchmarking", false],
  ["198.19.255.255", "benchmarking", false],
  ["192.0.0.8", "IETF protocol assignment", false],
  ["192.88.99.1", "6to4 relay anycast", false],
  // IPv6 public
  ["2606:4700:4700::1111", null, true],
  ["2001:4860:4860::8888", null, true],
  ["2a00:1450:4001:82a::200e", null, true],
  ["64:ff9b::808:808", null, true], // NAT64 of 8.8.8.8
  ["::ffff:8.8.8.8", null, true],
  ["2002:808:808::1", null, true], // 6to4 of 8.8.8.8
  // IPv6 private networks
  ["::1", "loopback", true],
  ["0:0:0:0:0:0:0:1", "loopback", true],
  ["fe80::1", "link-local", true],
  ["fe80::1%eth0", "link-local", true],
  ["febf:ffff::1", "link-local", true],
  ["fec0::1", "site-local", true],
  ["fc00::1", "unique-local", true],
  ["fd12:3456:789a::1", "unique-local", true],
  ["64:ff9b:1::a00:1", "local-use NAT64", true],
  // IPv6 carrying a forbidden IPv4
  ["::ffff:127.0.0.1", "loopback", true],
  ["::ffff:7f00:1", "loopback", true],
  ["::FFFF:7F00:0001", "loopback", true],
  ["[::ffff:10.0.0.1]", "private", true],
  ["::ffff:169.254.169.254", "cloud metadata", false],
  ["::ffff:0:127.0.0.1", "loopback", true], // IPv4-translated (SIIT)
  ["64:ff9b::7f00:1", "loopback", true], // NAT64 of 127.0.0.1
  ["64:ff9b::a9fe:a9fe", "cloud metadata", false], // NAT64 of 169.254.169.254
  ["64:ff9b::192.168.0.1", "private", true],
  ["2002:7f00:1::", "loopback", true], // 6to4 of 127.0.0.1
  ["2002:a9fe:a9fe::1", "cloud metadata", false],
  // IPv6 never reachable
  ["fd00:ec2::254", "cloud metadata", false],
  ["fd00:ec2:0::254", "cloud metadata", false],
  ["fd00:ec2::23", "cloud metadata", false],
  ["::", "unspecified", false],
  ["::127.0.0.1", "IPv4-compatible (deprecated)", false],
  ["::8.8.8.8", "IPv4-compatible (deprecated)", false],
  ["ff02::1", "multicast", false],
  ["ff05::1:3", "multicast", false],
  ["2001:db8::1", "documentation", false],
  ["3fff::1", "documentation", false],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo tunnel", false],
  ["2001:2::1", "IETF protocol assignment", false],
  ["100::1", "discard-only", false],
  ["4000::1", "reserved", false],
  ["1::1", "reserved", false],
  ["5f00::1", "SRv6 segment identifier", false],
  // Not addresses at all: refused rather than guessed at
  ["2130706433", "not a valid IP address", false],
  ["0x7f.0.0.1", "not a valid IP address", false],
  ["127.1", "not a valid IP address", false],
  ["0177.0.0.1", "not a valid IP address", false],
  ["127.0.0.1.", "not a valid IP address", false],
  ["256.0.0.1", "not a valid IP address", false],
  ["localhost", "not a valid IP address", false],
  ["", "not a valid IP address", false],
  ["1::2::3", "not a valid IP address", false],
  ["1:2:3:4:5:6:7:8:9", "not a valid IP address", false],
  ["12345::1", "not a valid IP address", false],
  ["1.2.3.4::", "not a valid IP address", false]
]

describe("AddressPolicy", () => {
  it.each(table)("%s -> %s", (address, label, reachableOnPrivateNetworks) => {
    expect(classifyAddress(address)?.label ?? null).toBe(label)
    expect(isForbiddenAddress(address)).toBe(label !== null)
    expect(isForbiddenAddress(address, { allowPrivateNetworks: true })).toBe(!reachableOnPrivateNetworks)
  })

  it("parses IPv4 strictly as dotted decimal", () => {
    expect(parseIpv4("127.0.0.1")).toBe(0x7f000001)
    expect(parseIpv4("255.255.255.255")).toBe(0xffffffff)
    expect(parseIpv4("01.2.3.4")).toBeUndefined()
    expect(parseIpv4("1.2.3")).toBeUndefined()
    expect(parseIpv4("1.2.3.4 ")).toBeUndefined()
  })

  it("parses IPv6 with compression and an IPv4 tail", () => {
    expect(parseIpv6("::")).toEqual([0, 0, 0, 0, 0, 0, 0, 0])
    expect(parseIpv6("1:2:3:4:5:6:7::")).toEqual([1, 2, 3, 4, 5, 6, 7, 0])
    expect(parseIpv6("::ffff:1.2.3.4")).toEqual([0, 0, 0, 0, 0, 0xffff, 0x0102, 0x0304])
    expect(parseIpv6("2001:db8::8:800:200c:417a")).toEqual([0x2001, 0xdb8, 0, 0, 8, 0x800, 0x200c, 0x417a])
    expect(parseIpv6("1:2:3:4:5:6:7:8::")).toBeUndefined()
    expect(parseIpv6("::1.2.3.4:5")).toBeUndefined()
  })
})
