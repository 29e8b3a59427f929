import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Client as Sdk1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Sdk1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { expect } from "vitest";
import { envelopeOf, type ToolCallResult } from "../../../mcp/support/mcp-clients.ts";

export const REDIRECT = "http://127.0.0.1:9/callback";

/** The SDKs' OAuthClientProvider, answering the authorization redirect by driving consent. */
export class TestAuthProvider {
  code: string | undefined;
  /** The query the authorization server redirected back with (code, state, iss). */
  callback = new URLSearchParams();
  private info: Record<string, unknown> | undefined;
  private stored: Record<string, unknown> | undefined;
  private verifier = "";
  readonly redirectUrl = REDIRECT;
  readonly clientMetadata = {
    client_name: "sdk test client",
    redirect_uris: [REDIRECT],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
  /** Plays the browser: from the authorization URL to the URL it is redirected back to. */
  private readonly drive: (authorizationUrl: string) => Promise<URL>;
  readonly clientMetadataUrl: string | undefined;
  constructor(drive: (authorizationUrl: string) => Promise<URL>, clientMetadataUrl?: string) {
    this.drive = drive;
    this.clientMetadataUrl = clientMetadataUrl;
  }
  clientInformation() {
    return this.info as never;
  }
  saveClientInformation(info: Record<string, unknown>) {
    this.info = info;
  }
  tokens() {
    return this.stored as never;
  }
  saveTokens(tokens: Record<string, unknown>) {
    this.stored = tokens;
  }
  get accessToken(): string {
    return this.stored?.access_token as string;
  }
  async redirectToAuthorization(url: URL) {
    const back = await this.drive(url.href);
    this.callback = back.searchParams;
    this.code = back.searchParams.get("code") ?? undefined;
  }
  private discovery: unknown;
  saveDiscoveryState(state: unknown) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery as never;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

export interface Line {
  name: string;
  /** Connects with the provider; finishes the authorization when the first connect is refused. */
  connect(url: string, provider: TestAuthProvider): Promise<{ whoami(): Promise<Record<string, unknown>> }>;
}

const whoamiOf = (result: unknown) => envelopeOf(result as ToolCallResult) as Record<string, unknown>;

export const lines: Line[] = [
  {
    name: "v2 client",
    async connect(url, provider) {
      const transport = () =>
        new StreamableHTTPClientTransport(new URL(`${url}/mcp`), { authProvider: provider });
      const first = transport();
      if (!provider.tokens()) {
        await expect(new Client({ name: "t", version: "1" }).connect(first)).rejects.toThrow(/nauthorized/);
        await first.finishAuth(provider.callback);
      }
      const client = new Client({ name: "t", version: "1" });
      await client.connect(transport());
      return { whoami: async () => whoamiOf(await client.callTool({ name: "whoami", arguments: {} })) };
    },
  },
  {
    name: "1.x SDK client",
    async connect(url, provider) {
      const transport = () => new Sdk1Transport(new URL(`${url}/mcp`), { authProvider: provider as never });
      const first = transport();
      if (!provider.tokens()) {
        await expect(new Sdk1Client({ name: "t", version: "1" }).connect(first)).rejects.toThrow(
          /nauthorized/,
        );
        await first.finishAuth(provider.code!);
      }
      const client = new Sdk1Client({ name: "t", version: "1" });
      await client.connect(transport());
      return { whoami: async () => whoamiOf(await client.callTool({ name: "whoami", arguments: {} })) };
    },
  },
];
