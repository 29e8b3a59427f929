import { resolveCredential } from "../client/credentials.ts";
import type { ServiceClient } from "../client/service-client.ts";
import type { CliDeps } from "./cli-deps.ts";
import { UsageError } from "./cli-io.ts";

/**
 * The service client a command uses: the server from `--server`, else SVC_BASE_URL, else the
 * stored login; the token from SVC_TOKEN, else the stored login (decisions.md, "Service").
 * No token is a usage error (exit 2) saying how to get one.
 */
export async function connectService(
  flags: { server?: string },
  deps: CliDeps,
): Promise<{ client: ServiceClient; server: string }> {
  const { server, token } = await resolveCredential(flags, deps.env);
  if (!token) {
    throw new UsageError(
      `no credential for the service: run svc login --token <token> --server <url>, or set SVC_BASE_URL and SVC_TOKEN (an operator issues tokens with svc-server token issue)`,
    );
  }
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    throw new UsageError(`the server address "${server}" is not a URL; pass --server http://host:port`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`the server address "${server}" must start with http:// or https://`);
  }
  return { client: deps.openClient({ server, token }), server };
}
