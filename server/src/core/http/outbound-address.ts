import { lookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";

/** Where a connection the service opens for a user-chosen URL may go. */
export interface OutboundPolicy {
  /** Also allow loopback destinations: tests only (SVC_WEBHOOK_ALLOW_LOOPBACK=1 and the like). */
  allowLoopback?: boolean;
  /** Allow loopback destinations and nothing else: a test's stand-in for the internet. */
  loopbackOnly?: boolean;
  /** Resolves a host name to its addresses; the system resolver unless a test gives its own. */
  resolve?: Resolve;
}

/** One address a name resolves to, as `dns.lookup` gives it. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

export type Resolve = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolve: Resolve = async (hostname) =>
  (await lookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

/** IPv4-compatible IPv6 (`::a.b.c.d`, RFC 4291 2.5.5.1, deprecated): ipaddr.js counts it as unicast. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

/**
 * Why `address` may not be reached, or null when it may. Only globally routable unicast
 * addresses pass: private, loopback, link-local, multicast, documentation, benchmarking,
 * translation (NAT64, 6to4, Teredo), site-local and every other special-use range are refused
 * (ipaddr.js keeps the IANA registries' list). An IPv4-mapped IPv6 address is judged as the IPv4
 * address it carries, so `::ffff:10.0.0.1` is as private as `10.0.0.1`.
 */
export function refusedAddress(address: string, allowLoopback: boolean, loopbackOnly = false): string | null {
  if (isIP(address) === 0) return `${address} is not an IP address`;
  let ip = ipaddr.parse(address);
  if (ip.kind() === "ipv6" && (ip as ipaddr.IPv6).isIPv4MappedAddress()) {
    ip = (ip as ipaddr.IPv6).toIPv4Address();
  }
  const range = ip.range();
  if (range === "loopback") return allowLoopback || loopbackOnly ? null : `${address} is a loopback address`;
  if (loopbackOnly) return `${address} is not a loopback address (this server reaches loopback only)`;
  if (range !== "unicast" || (ip.kind() === "ipv6" && ip.match(IPV4_COMPATIBLE))) {
    return `${address} is a private, link-local or special-use address`;
  }
  return null;
}

/** `localhost`, `localhost.` and every name under it (RFC 6761 6.3): loopback, whatever DNS says. */
export function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost");
}

/** A URL's host without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, "");
}

/**
 * The addresses a connection to `host` may use, every one checked, or an Error saying why none
 * may: an IP literal is checked as it is; a name is resolved once and refused when any of its
 * addresses is (so a name cannot mix a public address with a private one). The caller connects
 * to what this returns and never resolves again: the checked address is the dialled one.
 */
export async function allowedAddresses(host: string, policy: OutboundPolicy): Promise<ResolvedAddress[]> {
  const allowLoopback = policy.allowLoopback === true;
  const loopbackOnly = policy.loopbackOnly === true;
  // Node's test, not ipaddr.js's: `127.1` is a name to Node (and getaddrinfo), so it is resolved.
  if (isIP(host) !== 0) {
    const why = refusedAddress(host, allowLoopback, loopbackOnly);
    if (why) throw new Error(why);
    return [{ address: host, family: isIP(host) === 6 ? 6 : 4 }];
  }
  if (isLoopbackName(host) && !allowLoopback && !loopbackOnly)
    throw new Error(`${host} names a loopback host`);
  const addresses = await (policy.resolve ?? systemResolve)(host);
  if (addresses.length === 0) throw new Error(`${host} resolves to no address`);
  for (const { address } of addresses) {
    const why = refusedAddress(address, allowLoopback, loopbackOnly);
    if (why) throw new Error(`${host} resolves to ${why}`);
  }
  return addresses;
}

/**
 * A `lookup` for `http.request`/`net.connect` that answers only checked addresses. It answers in
 * the shape asked for: Node 20+ connects with `autoSelectFamily` and asks for `all`, an array.
 */
export function pinnedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    allowedAddresses(hostname, policy).then(
      (addresses) => {
        if (options.all) return callback(null, addresses);
        const [first] = addresses as [ResolvedAddress];
        callback(null, first.address, first.family);
      },
      (error: Error) => callback(Object.assign(error, { code: "EREFUSEDADDRESS" }), "", 0),
    );
  };
}
