import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/client/validators/ajv";
import { Client as Sdk1Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as Sdk1Transport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { adaptTool } from "../../../../src/edges/mcp/adapt-tool.ts";
import { tools } from "../../../../src/edges/mcp/tools/tools.ts";

/** A tool as tools/list reports it, the fields the tests read. */
export interface ListedTool {
  name: string;
  inputSchema: Record<string, unknown>;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean };
}

/** A tools/call result, the fields the tests read. */
export interface ToolCallResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** One resources/read content entry. */
export interface ReadContent {
  uri: string;
  mimeType?: string;
  text?: string;
  blob?: string;
  _meta?: Record<string, unknown>;
}

/** The same few calls over either SDK line, so one test body runs against every client. */
export interface TestClient {
  listTools(): Promise<ListedTool[]>;
  callTool(name: string, args?: Record<string, unknown>): Promise<ToolCallResult>;
  readResource(uri: string): Promise<ReadContent[]>;
  listResources(): Promise<Array<{ uri: string; name: string }>>;
  listResourceTemplates(): Promise<Array<{ name: string; uriTemplate: string }>>;
  close(): Promise<void>;
}

/** The SDK's own validator for each registered tool's declared outputSchema, compiled on first use. */
const validator = new AjvJsonSchemaValidator();
const declared = new Map(tools.map((tool) => [tool.name, tool]));
const checks = new Map<string, (value: unknown) => { valid: boolean; errorMessage?: string }>();

/**
 * A tool call's result, checked against the outputSchema the tool declares, refusals included:
 * every test that calls a registered tool through these clients checks its structured output
 * (issue 36), whatever the client line and whether or not the client listed the tool first.
 */
function checked(name: string, result: ToolCallResult): ToolCallResult {
  if (result.structuredContent !== undefined) checkStructuredOutput(name, result.structuredContent);
  return result;
}

/** Throws unless `structured` (a result as sent, JSON) matches the outputSchema tool `name` declares. */
export function checkStructuredOutput(name: string, structured: Record<string, unknown>): void {
  const tool = declared.get(name);
  if (tool === undefined) return;
  let check = checks.get(name);
  if (check === undefined) {
    check = validator.getValidator(adaptTool(tool).listed.outputSchema as Record<string, unknown>);
    checks.set(name, check);
  }
  const { valid, errorMessage } = check(structured);
  if (!valid) {
    throw new Error(
      `${name}'s result does not match its outputSchema: ${errorMessage} in ${JSON.stringify(structured)}`,
    );
  }
}

/** The client lines agents use: the current SDK on each protocol era, and the older 1.x SDK. */
export const clientLines = [
  {
    name: "v2 client on 2026-07-28",
    connect: (url: string, token: string, query?: string) => connectV2(url, token, "auto", query),
  },
  {
    name: "v2 client on 2025-11-25",
    connect: (url: string, token: string, query?: string) => connectV2(url, token, "legacy", query),
  },
  { name: "1.x SDK client", connect: connectSdk1 },
] as const;

/**
 * The endpoint URL, with a query (`?toolsets=all`) when given: the toolsets a client chooses ride
 * on the URL it is configured with.
 */
function endpoint(url: string, query = ""): URL {
  return new URL(`${url}/mcp${query}`);
}

async function connectV2(
  url: string,
  token: string,
  mode: "auto" | "legacy",
  query?: string,
): Promise<TestClient> {
  const client = new Client({ name: "svc-test", version: "1.0.0" }, { versionNegotiation: { mode } });
  await client.connect(
    new StreamableHTTPClientTransport(endpoint(url, query), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const expected = mode === "auto" ? "modern" : "legacy";
  if (client.getProtocolEra() !== expected) throw new Error(`expected the ${expected} era`);
  return {
    listTools: async () => (await client.listTools(undefined, { cacheMode: "bypass" })).tools as ListedTool[],
    callTool: async (name, args = {}) =>
      checked(name, (await client.callTool({ name, arguments: args })) as ToolCallResult),
    readResource: async (uri) =>
      (await client.readResource({ uri }, { cacheMode: "bypass" })).contents as ReadContent[],
    listResources: async () => (await client.listResources(undefined, { cacheMode: "bypass" })).resources,
    listResourceTemplates: async () =>
      (await client.listResourceTemplates(undefined, { cacheMode: "bypass" })).resourceTemplates,
    close: () => client.close(),
  };
}

async function connectSdk1(url: string, token: string, query?: string): Promise<TestClient> {
  const client = new Sdk1Client({ name: "svc-test", version: "1.0.0" });
  await client.connect(
    new Sdk1Transport(endpoint(url, query), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return {
    listTools: async () => (await client.listTools()).tools as ListedTool[],
    callTool: async (name, args = {}) =>
      checked(name, (await client.callTool({ name, arguments: args })) as ToolCallResult),
    readResource: async (uri) => (await client.readResource({ uri })).contents as ReadContent[],
    listResources: async () => (await client.listResources()).resources,
    listResourceTemplates: async () => (await client.listResourceTemplates()).resourceTemplates,
    close: () => client.close(),
  };
}

/**
 * The JSON envelope of a tool result. Spec 4.1: one text content holding one JSON object; the
 * same object is the structured content.
 */
export function envelopeOf(result: ToolCallResult): Record<string, unknown> {
  if (result.content.length !== 1 || result.content[0]?.type !== "text") {
    throw new Error(`expected one text content, got ${JSON.stringify(result.content)}`);
  }
  const envelope = JSON.parse(result.content[0].text!) as Record<string, unknown>;
  if (JSON.stringify(envelope) !== JSON.stringify(result.structuredContent)) {
    throw new Error("the structured content differs from the text envelope");
  }
  return envelope;
}
