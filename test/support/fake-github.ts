import { createPublicKey, randomBytes, verify } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One call the fake GitHub answered, as the App sent it. */
export interface GitHubCall {
  method: string;
  /** Path without the query, e.g. `/repos/acme/problems/check-runs`. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  status: number;
}

export interface FakeAnnotation {
  path: string;
  start_line: number;
  end_line: number;
  annotation_level: string;
  message: string;
  title?: string;
}

/** A check run as the fake stores it (the fields the App sets, plus GitHub's own). */
export interface FakeCheckRun {
  id: number;
  owner: string;
  repo: string;
  name: string;
  head_sha: string;
  status: string;
  conclusion: string | null;
  external_id: string | null;
  details_url: string | null;
  output: { title: string | null; summary: string | null; text: string | null; annotations_count: number };
  annotations: FakeAnnotation[];
  app: { id: number };
  started_at: string;
  completed_at: string | null;
}

export interface FakeGitHub {
  /** The REST API base URL (`http://127.0.0.1:<port>`), as `GITHUB_API_URL` would give it. */
  url: string;
  calls: GitHubCall[];
  checkRuns: FakeCheckRun[];
  /** Installation tokens issued so far, newest last. */
  tokens: string[];
  /** True when `token` is an installation token this fake issued and it has not expired. */
  acceptsToken(token: string): boolean;
  close(): Promise<void>;
}

/** GitHub's documented ceilings on a check run's output. */
const MAX_OUTPUT_CHARS = 65_535;
const MAX_ANNOTATIONS_PER_REQUEST = 50;

/**
 * A local HTTP server speaking the GitHub REST endpoints the App uses, with GitHub's rules where
 * they matter to the App: `POST /app/installations/{id}/access_tokens` takes only an RS256 JWT
 * signed with the App's private key (issuer = app id, unexpired); the check-run endpoints take only
 * installation tokens it issued, refuse (422) a summary over 65,535 characters, more than 50
 * annotations in one request or a completed run without a conclusion, and append annotations on
 * update. Every call is recorded.
 */
export async function startFakeGitHub(options: { appId: number; publicKeyPem: string }): Promise<FakeGitHub> {
  const publicKey = createPublicKey(options.publicKeyPem);
  const calls: GitHubCall[] = [];
  const checkRuns: FakeCheckRun[] = [];
  const tokens = new Map<string, number>();
  const issued: string[] = [];

  const acceptsToken = (token: string) => (tokens.get(token) ?? 0) > Date.now();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://localhost");
    const raw = await readBody(req);
    const call: GitHubCall = {
      method: req.method ?? "GET",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      body: raw ? JSON.parse(raw) : null,
      status: 0,
    };
    calls.push(call);
    const send = (status: number, body: unknown) => {
      call.status = status;
      res.writeHead(status, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify(body));
    };
    const auth = req.headers.authorization ?? "";
    const route = (method: string, pattern: RegExp) =>
      call.method === method ? url.pathname.match(pattern) : null;

    if (route("POST", /^\/app\/installations\/(\d+)\/access_tokens$/)) {
      if (!validJwt(auth.replace(/^Bearer /i, ""), publicKey, options.appId)) {
        return send(401, { message: "A JSON web token could not be decoded" });
      }
      const token = `ghs_${randomBytes(18).toString("hex")}`;
      const expires = Date.now() + 3600_000;
      tokens.set(token, expires);
      issued.push(token);
      return send(201, {
        token,
        expires_at: new Date(expires).toISOString(),
        permissions: { checks: "write", contents: "read", metadata: "read" },
        repository_selection: "all",
      });
    }

    const bearer = auth.replace(/^(token|bearer) /i, "");
    if (!acceptsToken(bearer)) return send(401, { message: "Bad credentials" });

    const match2 = route("GET", /^\/repos\/([^/]+)\/([^/]+)\/commits\/([^/]+)\/check-runs$/);
    if (match2) {
      const match = match2;
      const [, owner, repo, ref] = match;
      let runs = checkRuns.filter((r) => r.owner === owner && r.repo === repo && r.head_sha === ref);
      if (call.query.check_name) runs = runs.filter((r) => r.name === call.query.check_name);
      if (call.query.app_id) runs = runs.filter((r) => String(r.app.id) === call.query.app_id);
      if (call.query.status) runs = runs.filter((r) => r.status === call.query.status);
      if ((call.query.filter ?? "latest") === "latest") {
        const latest = new Map<string, FakeCheckRun>();
        for (const run of runs) latest.set(run.name, run);
        runs = [...latest.values()];
      }
      runs = [...runs].reverse();
      const perPage = Math.min(Number(call.query.per_page ?? 30), 100);
      const page = Number(call.query.page ?? 1);
      return send(200, {
        total_count: runs.length,
        check_runs: runs.slice((page - 1) * perPage, page * perPage).map(view),
      });
    }

    const match3 = route("POST", /^\/repos\/([^/]+)\/([^/]+)\/check-runs$/);
    if (match3) {
      const match = match3;
      const body = call.body as Record<string, unknown>;
      const problem = invalidCheckRun(body, true);
      if (problem) return send(422, { message: problem });
      const now = new Date().toISOString();
      const run: FakeCheckRun = {
        id: checkRuns.length + 1,
        owner: match[1]!,
        repo: match[2]!,
        name: body.name as string,
        head_sha: body.head_sha as string,
        status: (body.status as string) ?? "queued",
        conclusion: (body.conclusion as string) ?? null,
        external_id: (body.external_id as string) ?? null,
        details_url: (body.details_url as string) ?? null,
        output: { title: null, summary: null, text: null, annotations_count: 0 },
        annotations: [],
        app: { id: options.appId },
        started_at: now,
        completed_at: body.conclusion ? now : null,
      };
      applyOutput(run, body.output);
      checkRuns.push(run);
      return send(201, view(run));
    }

    const match4 = route("PATCH", /^\/repos\/([^/]+)\/([^/]+)\/check-runs\/(\d+)$/);
    if (match4) {
      const match = match4;
      const run = checkRuns.find(
        (r) => r.id === Number(match[3]) && r.owner === match[1] && r.repo === match[2],
      );
      if (!run) return send(404, { message: "Not Found" });
      const body = call.body as Record<string, unknown>;
      const problem = invalidCheckRun(
        { ...body, name: body.name ?? run.name, head_sha: run.head_sha },
        false,
      );
      if (problem) return send(422, { message: problem });
      for (const key of ["name", "status", "conclusion", "external_id", "details_url"] as const) {
        if (body[key] !== undefined) (run as unknown as Record<string, unknown>)[key] = body[key];
      }
      if (body.conclusion !== undefined) {
        run.status = "completed";
        run.completed_at = new Date().toISOString();
      }
      applyOutput(run, body.output);
      return send(200, view(run));
    }

    const match5 = route("GET", /^\/repos\/([^/]+)\/([^/]+)\/check-runs\/(\d+)\/annotations$/);
    if (match5) {
      const match = match5;
      const run = checkRuns.find((r) => r.id === Number(match[3]));
      return run ? send(200, run.annotations) : send(404, { message: "Not Found" });
    }

    return send(404, { message: "Not Found", documentation_url: "https://docs.github.com/rest" });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: Error) => {
      res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ message: error.message }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    checkRuns,
    tokens: issued,
    acceptsToken,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
    req.on("error", reject);
  });
}

function validJwt(jwt: string, publicKey: ReturnType<typeof createPublicKey>, appId: number): boolean {
  const [header, payload, signature] = jwt.split(".");
  if (!header || !payload || !signature) return false;
  const decode = (part: string) => JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
  try {
    if (decode(header).alg !== "RS256") return false;
    const claims = decode(payload) as { iss?: unknown; exp?: number; iat?: number };
    if (String(claims.iss) !== String(appId)) return false;
    if (typeof claims.exp !== "number" || claims.exp * 1000 < Date.now()) return false;
    return verify(
      "RSA-SHA256",
      Buffer.from(`${header}.${payload}`),
      publicKey,
      Buffer.from(signature, "base64url"),
    );
  } catch {
    return false;
  }
}

/** GitHub's 422 reasons for a check-run body, or undefined when it is acceptable. */
function invalidCheckRun(body: Record<string, unknown>, creating: boolean): string | undefined {
  if (typeof body.name !== "string" || body.name === "") return "name is required";
  if (creating && (typeof body.head_sha !== "string" || !/^[0-9a-f]{40}$/.test(body.head_sha))) {
    return "head_sha must be a commit id";
  }
  if (body.status !== undefined && !["queued", "in_progress", "completed"].includes(body.status as string)) {
    return `status ${String(body.status)} is not one of queued, in_progress, completed`;
  }
  if (body.status === "completed" && body.conclusion === undefined)
    return "conclusion is required when completed";
  const conclusions = [
    "success",
    "failure",
    "neutral",
    "cancelled",
    "skipped",
    "timed_out",
    "action_required",
  ];
  if (body.conclusion !== undefined && !conclusions.includes(body.conclusion as string)) {
    return `conclusion ${String(body.conclusion)} is not valid`;
  }
  if (body.external_id !== undefined && typeof body.external_id !== "string")
    return "external_id must be a string";
  const output = body.output as Record<string, unknown> | undefined;
  if (output === undefined) return undefined;
  if (typeof output.title !== "string" || typeof output.summary !== "string") {
    return "output needs a title and a summary";
  }
  if (output.summary.length > MAX_OUTPUT_CHARS)
    return `output.summary is ${output.summary.length} characters; at most 65535`;
  if (typeof output.text === "string" && output.text.length > MAX_OUTPUT_CHARS)
    return "output.text is over 65535 characters";
  const annotations = (output.annotations ?? []) as FakeAnnotation[];
  if (annotations.length > MAX_ANNOTATIONS_PER_REQUEST) {
    return `${annotations.length} annotations in one request; at most 50`;
  }
  for (const a of annotations) {
    if (!a.path || !Number.isInteger(a.start_line) || !Number.isInteger(a.end_line) || !a.message) {
      return "each annotation needs path, start_line, end_line and message";
    }
    if (!["notice", "warning", "failure"].includes(a.annotation_level))
      return "annotation_level is not valid";
  }
  return undefined;
}

function applyOutput(run: FakeCheckRun, output: unknown): void {
  if (!output || typeof output !== "object") return;
  const o = output as { title: string; summary: string; text?: string; annotations?: FakeAnnotation[] };
  run.output.title = o.title;
  run.output.summary = o.summary;
  if (o.text !== undefined) run.output.text = o.text;
  run.annotations.push(...(o.annotations ?? []));
  run.output.annotations_count = run.annotations.length;
}

function view(run: FakeCheckRun) {
  const { owner: _owner, repo: _repo, annotations: _annotations, ...shown } = run;
  return { ...shown, check_suite: null, pull_requests: [] };
}
