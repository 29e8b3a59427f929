import { lookup as dnsLookup } from "node:dns";
import { request as httpRequest, type IncomingMessage } from "node:http";
import { request as httpsRequest } from "node:https";
import { BlockList, isIP, type LookupFunction } from "node:net";

/** How a POST to an address a user chose is bounded. */
export interface SafePostOptions {
  /** Also allow `http:` and loopback destinations: tests only (SVC_WEBHOOK_ALLOW_LOOPBACK=1). */
  allowLoopback?: boolean;
  /** The whole request, connection to last byte read; default 10 s. */
  timeoutMs?: number;
  /** How much of the answer is read before the connection is dropped; default 64 KiB. */
  maxResponseBytes?: number;
}

/** The answer to a POST: its status and the first bytes of its body. */
export interface SafePostAnswer {
  status: number;
  body: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

/** Special-use ranges a user-chosen URL never reaches (RFC 6890 and its IPv6 counterparts). */
const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, "ipv4");
}
for (const [network, prefix] of [
  ["::", 128],
  ["64:ff9b::", 96],
  ["100::", 64],
  ["2001:db8::", 32],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) {
  FORBIDDEN.addSubnet(network, prefix, "ipv6");
}
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/**
 * Why `address` may not be reached, or null when it may. IPv4-mapped IPv6 addresses are judged
 * as the IPv4 address they carry, so `::ffff:10.0.0.1` is as private as `10.0.0.1`.
 */
export function refusedAddress(address: string, allowLoopback: boolean): string | null {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  const ip = mapped ? mapped[1]! : address;
  const family = isIP(ip) === 6 ? "ipv6" : "ipv4";
  if (LOOPBACK.check(ip, family)) return allowLoopback ? null : `${address} is a loopback address`;
  if (FORBIDDEN.check(ip, family)) return `${address} is a private, link-local or special-use address`;
  return null;
}

/**
 * Why a URL a user gives as a delivery address is unusable, or null: it must be absolute,
 * `https` (or `http` with `allowLoopback`), carry no credentials, and name no refused address
 * literally. Names are checked again, after resolution, at every request.
 */
export function refusedUrl(text: string, allowLoopback: boolean): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "is not an absolute URL";
  }
  if (url.protocol !== "https:" && !(allowLoopback && url.protocol === "http:"))
    return "must be an https:// URL";
  if (url.username || url.password) return "must not carry a user name or password";
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) !== 0) {
    const why = refusedAddress(host, allowLoopback);
    if (why) return `names ${why}`;
  } else if (!allowLoopback && (host === "localhost" || host.endsWith(".localhost"))) {
    return "names a loopback host";
  }
  return null;
}

/**
 * POSTs `body` to a URL a user chose, so that it cannot be turned against the service's own
 * network (SSRF): the URL is checked as `refusedUrl` does; the host name is resolved here and
 * every address it resolves to must be allowed, and the connection goes to the checked address
 * (pinned: no second resolution can swap it); redirects are answers, never followed; the whole
 * exchange is bounded in time and only the first `maxResponseBytes` of the answer are read.
 * Throws an Error saying why when no answer was had.
 */
export async function safePost(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: SafePostOptions = {},
): Promise<SafePostAnswer> {
  const allowLoopback = options.allowLoopback === true;
  const why = refusedUrl(target, allowLoopback);
  if (why) throw new Error(`the URL ${why}`);
  const url = new URL(target);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const pinnedLookup: LookupFunction = (hostname, _options, callback) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) => {
      if (error) return callback(error, "", 0);
      const refused = addresses.map((a) => refusedAddress(a.address, allowLoopback)).find(Boolean);
      if (refused) return callback(new Error(`${hostname} resolves to ${refused}`), "", 0);
      const [chosen] = addresses;
      if (!chosen) return callback(new Error(`${hostname} resolves to no address`), "", 0);
      callback(null, chosen.address, chosen.family);
    });
  };
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  return await new Promise<SafePostAnswer>((resolve, reject) => {
    const request = send(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        // An IP literal is connected to as it is (refusedUrl checked it); a name goes through the pin.
        ...(isIP(host) === 0 && { lookup: pinnedLookup }),
        agent: false,
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      },
      (response: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const finish = () => {
          clearTimeout(deadline);
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") });
        };
        response.on("data", (chunk: Buffer) => {
          if (size >= limit) return;
          chunks.push(chunk.subarray(0, limit - size));
          size += chunk.length;
          // Enough of the answer: the rest is not read.
          if (size >= limit) {
            finish();
            response.destroy();
          }
        });
        response.on("end", finish);
        response.on("error", (error) => {
          clearTimeout(deadline);
          reject(error);
        });
      },
    );
    const deadline = setTimeout(
      () =>
        request.destroy(new Error(`no complete answer within ${options.timeoutMs ?? DEFAULT_TIMEOUT_MS} ms`)),
      options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    request.on("timeout", () => request.destroy(new Error("the connection went quiet")));
    request.on("error", (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    request.end(body);
  });
}
