import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { z } from "zod";
import { checkStructuredOutput } from "../../edges/mcp/support/mcp-clients.ts";

/** A custom method's result, as the SDK client hands it over: any JSON object. */
const AnyResult = z.looseObject({});

/** A refusal of an event method, as the SDK client raises it. */
export interface MethodRefusal {
  code: number;
  message: string;
  error?: { code: string; message: string; field?: string };
}

/**
 * A connected agent as the tests drive it: the current SDK client over Streamable HTTP with a
 * bearer token, calling tools and the event methods (custom requests through `client.request`).
 */
export interface AgentClient {
  client: Client;
  tool(name: string, args?: Record<string, unknown>): Promise<Record<string, any>>;
  method(method: string, params?: Record<string, unknown>): Promise<Record<string, any>>;
  /** The refusal a method call ends in; throws when it succeeds. */
  refusal(method: string, params?: Record<string, unknown>): Promise<MethodRefusal>;
  close(): Promise<void>;
}

export async function connectAgent(url: string, token: string): Promise<AgentClient> {
  const client = new Client({ name: "svc-agent-test", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  const method = async (name: string, params: Record<string, unknown> = {}) =>
    (await client.request({ method: name, params } as never, AnyResult)) as Record<string, any>;
  return {
    client,
    async tool(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as {
        content: Array<{ text?: string }>;
        structuredContent?: Record<string, unknown>;
        isError?: boolean;
      };
      if (result.structuredContent !== undefined) checkStructuredOutput(name, result.structuredContent);
      return { ...JSON.parse(result.content[0]!.text!), isError: result.isError === true };
    },
    method,
    async refusal(name, params = {}) {
      try {
        await method(name, params);
      } catch (error) {
        const failure = error as { code: number; message: string; data?: { error?: MethodRefusal["error"] } };
        return { code: failure.code, message: failure.message, error: failure.data?.error };
      }
      throw new Error(`${name} succeeded`);
    },
    close: () => client.close(),
  };
}
