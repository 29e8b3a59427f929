import type { FastifyRequest } from "fastify";

/** Path segments that are secrets: a sign-in link's token, an OAuth interaction's id (consent and its resumption). */
const SECRET_SEGMENTS: readonly [RegExp, string][] = [
  [/svl_[0-9A-Za-z]+/g, "svl_[redacted]"],
  [/(\/oauth\/(?:interaction|auth)\/)[^/?]+/g, "$1[redacted]"],
];

/**
 * Every request's log line: method, path, host and peer, with the query string's values and the
 * secret path segments removed. Query strings carry secrets (a download's signature, GitHub's
 * `code` and `state`, an OAuth client's `state`), and a log is read by more people than a
 * database, so no log line holds one (a test reads the log of a full sign-in round for them).
 */
export function requestLogLine(request: FastifyRequest) {
  const [path, query] = request.url.split("?", 2) as [string, string | undefined];
  let url = path;
  for (const [pattern, replacement] of SECRET_SEGMENTS) url = url.replace(pattern, replacement);
  if (query !== undefined) {
    const names = [...new URLSearchParams(query).keys()].slice(0, 20).map((name) => name.slice(0, 40));
    url += `?${names.map((name) => `${encodeURIComponent(name)}=…`).join("&")}`;
  }
  return { method: request.method, url, host: request.host, remoteAddress: request.ip };
}
