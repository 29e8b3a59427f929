import { type Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { type Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { isIP } from "node:net";
import { hostOf, isLoopbackName, pinnedLookup, type Resolve, refusedAddress } from "./outbound-address.ts";

/** How a POST to an address a user chose is bounded. */
export interface SafePostOptions {
  /** Also allow `http:` and loopback destinations: tests only (SVC_WEBHOOK_ALLOW_LOOPBACK=1). */
  allowLoopback?: boolean;
  /** The whole request, connection to last byte read; default 10 s. */
  timeoutMs?: number;
  /** How much of the answer is read before the connection is dropped; default 64 KiB. */
  maxResponseBytes?: number;
  /** Resolves host names; the system resolver unless a test gives its own. */
  resolve?: Resolve;
  /**
   * Keep-alive agents to reuse connections with (webhook delivery); without them each POST opens
   * its own. A reused connection goes to the address checked when it was opened.
   */
  agents?: PostAgents;
}

/** The agents safePost reuses connections through, one per protocol. */
export interface PostAgents {
  http: HttpAgent;
  https: HttpsAgent;
}

/** The answer to a POST: its status and the first bytes of its body. */
export interface SafePostAnswer {
  status: number;
  body: string;
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_RESPONSE_BYTES = 64 * 1024;

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
  const host = hostOf(url);
  if (isIP(host) !== 0) {
    const why = refusedAddress(host, allowLoopback);
    if (why) return `names ${why}`;
  } else if (!allowLoopback && isLoopbackName(host)) {
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
  try {
    return await postOnce(target, body, headers, options);
  } catch (error) {
    // A kept-alive connection the receiver closed as the request went out: the request never
    // reached it, so it goes once more on a fresh connection (as Node's docs advise).
    if (!(error as { reusedSocket?: boolean }).reusedSocket) throw error;
    return await postOnce(target, body, headers, options);
  }
}

async function postOnce(
  target: string,
  body: string,
  headers: Record<string, string>,
  options: SafePostOptions,
): Promise<SafePostAnswer> {
  const allowLoopback = options.allowLoopback === true;
  const why = refusedUrl(target, allowLoopback);
  if (why) throw new Error(`the URL ${why}`);
  const url = new URL(target);
  const send = url.protocol === "https:" ? httpsRequest : httpRequest;
  const limit = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  let answered = false;
  return await new Promise<SafePostAnswer>((resolve, reject) => {
    const request = send(
      url,
      {
        method: "POST",
        headers: { ...headers, "content-length": String(Buffer.byteLength(body)) },
        // An IP literal is connected to as it is (refusedUrl checked it); a name goes through the pin.
        lookup: pinnedLookup({ allowLoopback, resolve: options.resolve }),
        agent: options.agents
          ? url.protocol === "https:"
            ? options.agents.https
            : options.agents.http
          : false,
        timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      },
      (response: IncomingMessage) => {
        answered = true;
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
      const code = (error as NodeJS.ErrnoException).code;
      if (request.reusedSocket && !answered && (code === "ECONNRESET" || code === "EPIPE"))
        Object.assign(error, { reusedSocket: true });
      reject(error);
    });
    request.end(body);
  });
}
