import { ServiceError } from "../../src/core/errors/service-error.ts";
import type { Services } from "../../src/core/services/services.ts";
import { discoveryTools } from "../../src/edges/mcp/tools/discovery-tools.ts";
import { workTools } from "../../src/edges/mcp/tools/work-tools.ts";
import { authenticate } from "../../src/users/authenticate.ts";
import { requireScope } from "../../src/users/require-scope.ts";
import { checkStructuredOutput } from "../edges/mcp/support/mcp-clients.ts";
import type { SeededUser } from "../support/seed-records.ts";

/** The base address tests pass as the public origin. */
export const TEST_BASE_URL = "http://svc.test";

/**
 * Calls one of this domain's tools as the MCP endpoint would: the token, its scope, then the
 * input schema, then `run`. Returns the result envelope or rejects with the ServiceError.
 */
export async function callTool(
  services: Services,
  caller: SeededUser,
  name: string,
  args: Record<string, unknown> = {},
  baseUrl = TEST_BASE_URL,
): Promise<Record<string, unknown>> {
  const tool = [...discoveryTools, ...workTools].find((t) => t.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  // Each call authenticates its token afresh, as every request to the endpoint does, so a role
  // changed between calls is seen on the next one.
  const principal = await authenticate(services.sql, caller.token);
  if (!principal) throw new ServiceError("unauthorized", "the token is unknown or revoked");
  requireScope(principal, tool.scope);
  const parsed = tool.input.safeParse(args);
  if (!parsed.success) {
    throw new ServiceError("invalid_input", parsed.error.issues[0]!.message, {
      field: parsed.error.issues[0]!.path.join("."),
    });
  }
  const result = await tool.run({ services, principal, baseUrl }, parsed.data);
  // As sent (dates as ISO strings), against the outputSchema the tool declares.
  checkStructuredOutput(name, JSON.parse(JSON.stringify(result)));
  return result;
}

/** `callTool` with the result typed as the test expects it. */
export async function callToolAs<T>(
  services: Services,
  caller: SeededUser,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  return (await callTool(services, caller, name, args)) as T;
}
