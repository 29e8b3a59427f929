/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance, its server
 * scenarios) against this server's /mcp: `node scripts/mcp-conformance.ts [scenario ...]`
 * (DATABASE_URL, else the embedded PostgreSQL). The suite connects without credentials, so a
 * loopback proxy in front of the service adds an operator token's `Authorization` header and
 * passes everything else through unchanged (Host and Origin included, for the DNS-rebinding
 * scenario). The suite is not a devDependency (it would add its install to every CI run):
 * CONFORMANCE_BIN names an installed `conformance` binary, else `npx` fetches the pinned release.
 * Many scenarios need the reference server's own tools (test_simple_text, prompts, sampling);
 * those are listed as not applicable and not run. Prints each scenario's outcome and a count.
 */
import { execFile } from "node:child_process";
import { createServer, request } from "node:http";
import { delimiter, dirname } from "node:path";
import { pino } from "pino";
import { benchDatabase } from "../bench/support/bench-database.ts";
import { buildApp } from "../server/src/edges/cli/build-app.ts";
import { openServices } from "../server/src/edges/cli/open-services.ts";
import { addUser } from "../server/src/users/add-user.ts";
import { issueToken } from "../server/src/users/issue-token.ts";

const RELEASE = "@modelcontextprotocol/conformance@0.1.16";

/** The server scenarios that test the protocol rather than the reference server's fixtures. */
const APPLICABLE = [
  "server-initialize",
  "ping",
  "tools-list",
  "resources-list",
  "server-sse-polling",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

/** The suite's other server scenarios, and why they do not apply to svc. */
const NOT_APPLICABLE: Record<string, string> = {
  "logging-set-level": "svc declares no logging capability",
  "completion-complete": "svc declares no completions",
  "tools-call-*": "need the reference server's test_* tools",
  "json-schema-2020-12": "needs the reference server's json_schema_2020_12_tool",
  "elicitation-*": "svc sends no elicitation",
  "resources-read-*, resources-templates-read, resources-subscribe, resources-unsubscribe":
    "need the reference server's test:// resources",
  "prompts-*": "svc declares no prompts",
};

const scenarios = process.argv.length > 2 ? process.argv.slice(2) : APPLICABLE;
const db = await benchDatabase();
let exitCode = 0;
try {
  await addUser(db.sql, { handle: "conformance" });
  const { token } = await issueToken(db.sql, "conformance", ["read", "contribute"]);
  const log = pino({ level: "silent" });
  const services = await openServices({ sql: db.sql, log, clock: () => new Date(), dataDir: db.dataDir });
  const app = buildApp(services);
  const target = new URL(await app.listen({ host: "127.0.0.1", port: 0 }));
  const proxy = createServer((incoming, outgoing) => {
    const forwarded = request(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, authorization: `Bearer ${token}` },
      },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    forwarded.on("error", () => outgoing.destroy());
    incoming.pipe(forwarded);
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  const { port } = proxy.address() as { port: number };
  const url = `http://127.0.0.1:${port}/mcp`;

  // The suite needs a recent node: this process's runs the installed binary directly.
  const command = process.env.CONFORMANCE_BIN
    ? [process.execPath, process.env.CONFORMANCE_BIN]
    : ["npx", "--yes", RELEASE];
  let passed = 0;
  for (const scenario of scenarios) {
    // Asynchronously: the proxy and the service answer from this very process meanwhile.
    const run = await new Promise<{ status: number | null; output: string }>((resolve) => {
      execFile(
        command[0]!,
        [...command.slice(1), "server", "--url", url, "--scenario", scenario],
        {
          timeout: 120_000,
          maxBuffer: 16 * 1024 * 1024,
          // npx and the suite's shebang need a recent node: this process's, first on the PATH.
          env: { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ""}` },
        },
        (error, stdout, stderr) =>
          resolve({ status: error ? ((error.code as number | undefined) ?? 1) : 0, output: stdout + stderr }),
      );
    });
    const ok = run.status === 0;
    if (ok) passed++;
    console.log(`${ok ? "pass" : "FAIL"}  ${scenario}`);
    if (!ok) {
      const output = run.output.trim().split("\n").slice(-15);
      console.log(output.map((line) => line.slice(0, 300)).join("\n"));
    }
  }
  for (const [names, why] of Object.entries(NOT_APPLICABLE)) console.log(`n/a   ${names}: ${why}`);
  console.log(`conformance (${RELEASE}): ${passed} of ${scenarios.length} applicable server scenarios pass`);
  if (passed !== scenarios.length) exitCode = 1;
  proxy.close();
  await app.close();
} finally {
  await db.close();
}
process.exit(exitCode);
