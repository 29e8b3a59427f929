import { createServer } from "node:http";
import { createGitHubApp } from "./create-github-app.ts";
import { ConfigError, readAppConfig } from "./read-app-config.ts";

/**
 * `npm run -w @svc/github-app start`: the App's webhook endpoint on HOST:PORT (docs/github-app.md).
 * Every other path answers 404; SIGTERM and SIGINT stop taking deliveries and finish those taken.
 */
async function main(): Promise<void> {
  let config: ReturnType<typeof readAppConfig>;
  try {
    config = readAppConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`svc-github-app: ${error.message}\n`);
    process.exit(2);
  }
  let app: Awaited<ReturnType<typeof createGitHubApp>>;
  try {
    app = await createGitHubApp(config, { logLevel: (process.env.LOG_LEVEL as "info") ?? "info" });
  } catch (error) {
    // DATABASE_URL unreachable, or its migration refused: say so in one line, not a stack.
    process.stderr.write(`svc-github-app: could not start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  const server = createServer((req, res) => {
    if (req.url === "/healthz") {
      res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
      return;
    }
    app.handle(req, res).then((handled) => {
      if (!handled && !res.headersSent) res.writeHead(404).end();
    });
  });
  server.listen(config.port, config.host, () => {
    process.stdout.write(
      `svc-github-app listening on http://${config.host}:${config.port}${config.webhookPath}\n`,
    );
  });
  const stop = () => {
    server.close();
    app.close().then(() => process.exit(0));
  };
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}

await main();
