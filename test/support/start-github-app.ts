import { generateKeyPairSync } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createGitHubApp, type GitHubApp } from "../../github-app/src/create-github-app.ts";
import { readAppConfig } from "../../github-app/src/read-app-config.ts";
import { type FakeGitHub, startFakeGitHub } from "./fake-github.ts";

/** An RSA key pair as GitHub issues App keys (PKCS#1 PEM). */
export function appKeyPair(): { privateKey: string; publicKey: string } {
  return generateKeyPairSync("rsa", {
    modulusLength: 2048,
    privateKeyEncoding: { type: "pkcs1", format: "pem" },
    publicKeyEncoding: { type: "spki", format: "pem" },
  });
}

export interface RunningApp {
  app: GitHubApp;
  /** The webhook endpoint. */
  webhookUrl: string;
  close(): Promise<void>;
}

/**
 * Starts the App as its main does, configured through the environment variables
 * docs/github-app.md names, with its webhook endpoint on a loopback port.
 */
export async function startGitHubApp(env: Record<string, string>): Promise<RunningApp> {
  const app = await createGitHubApp(readAppConfig({ ...env, PORT: "0" }), {
    logLevel: (process.env.SVC_TEST_APP_LOG as "fatal") ?? "fatal",
    throttle: false,
    retry: { sleep: async () => {} },
  });
  const server = createServer((req, res) => {
    app.handle(req, res).then((handled) => {
      if (!handled && !res.headersSent) res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    app,
    webhookUrl: `http://127.0.0.1:${port}/api/github/webhooks`,
    close: async () => {
      await app.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export { type FakeGitHub, startFakeGitHub };
