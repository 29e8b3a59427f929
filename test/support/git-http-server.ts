import { spawn } from "node:child_process";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** git's own smart-HTTP server program, run as a CGI. */
export const GIT_HTTP_BACKEND = "/usr/lib/git-core/git-http-backend";

/** One request the Git server answered. */
export interface GitRequest {
  method: string;
  path: string;
  user: string | null;
  status: number;
}

export interface GitHttpServer {
  /** `http://127.0.0.1:<port>`; a repository `<root>/a/b.git` is at `<url>/a/b.git`. */
  url: string;
  requests: GitRequest[];
  close(): Promise<void>;
}

/**
 * A local Git smart-HTTP server: every request is handed to `git http-backend` as a CGI, exactly
 * as Apache or nginx would, over the bare repositories under `root`. With `authorize`, requests
 * need HTTP Basic credentials it accepts (401 with a Basic challenge otherwise), like GitHub's
 * `x-access-token:<installation token>`.
 */
export async function startGitHttpServer(options: {
  root: string;
  authorize?: (user: string, password: string) => boolean;
}): Promise<GitHttpServer> {
  const requests: GitRequest[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const record: GitRequest = { method: req.method ?? "GET", path: url.pathname, user: null, status: 0 };
    requests.push(record);
    const credentials = basicCredentials(req);
    record.user = credentials?.user ?? null;
    if (options.authorize && !(credentials && options.authorize(credentials.user, credentials.password))) {
      record.status = 401;
      res.writeHead(401, { "www-authenticate": 'Basic realm="git"', "content-type": "text/plain" });
      res.end("authentication required\n");
      return;
    }
    runBackend(options.root, req, res, url, record.user).then(
      (status) => {
        record.status = status;
      },
      (error: Error) => {
        record.status = 500;
        if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
        res.end(`git http-backend failed: ${error.message}\n`);
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function basicCredentials(req: IncomingMessage): { user: string; password: string } | null {
  const header = req.headers.authorization ?? "";
  if (!header.toLowerCase().startsWith("basic ")) return null;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon === -1 ? null : { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Runs one CGI request; resolves to the HTTP status the backend chose. */
function runBackend(
  root: string,
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  user: string | null,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: "1",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: req.method ?? "GET",
      CONTENT_TYPE: req.headers["content-type"] ?? "",
      REMOTE_ADDR: "127.0.0.1",
      GATEWAY_INTERFACE: "CGI/1.1",
      SERVER_PROTOCOL: "HTTP/1.1",
      ...(user ? { REMOTE_USER: user } : {}),
      ...(req.headers["content-encoding"]
        ? { HTTP_CONTENT_ENCODING: String(req.headers["content-encoding"]) }
        : {}),
      ...(req.headers["git-protocol"] ? { GIT_PROTOCOL: String(req.headers["git-protocol"]) } : {}),
      ...(req.headers["content-length"] ? { CONTENT_LENGTH: String(req.headers["content-length"]) } : {}),
    };
    const child = spawn(GIT_HTTP_BACKEND, [], { env, stdio: ["pipe", "pipe", "pipe"] });
    req.pipe(child.stdin);
    let head = Buffer.alloc(0);
    let headerDone = false;
    let status = 200;
    let stderr = "";
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout.on("data", (chunk: Buffer) => {
      if (headerDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf("\r\n\r\n");
      if (end === -1) return;
      headerDone = true;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
        const colon = line.indexOf(":");
        const name = line.slice(0, colon).trim().toLowerCase();
        const value = line.slice(colon + 1).trim();
        if (name === "status") status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.write(head.subarray(end + 4));
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (!headerDone) {
        reject(new Error(`exit ${code}: ${stderr.trim()}`));
        return;
      }
      res.end();
      resolve(status);
    });
  });
}
