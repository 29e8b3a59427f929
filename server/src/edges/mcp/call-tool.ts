import type { CallToolResult } from "@modelcontextprotocol/server";
import { oneActiveAttemptHint } from "../../attempts/attempt-hints.ts";
import { type ErrorBody, ServiceError } from "../../core/errors/service-error.ts";
import { mcpToolCallDuration, mcpToolCalls } from "../../core/metrics/metrics.ts";
import { SpanStatusCode, withSpan } from "../../core/tracing/tracing.ts";
import { requireScope } from "../../users/require-scope.ts";
import { refuseUnsafeText } from "../inputs/unsafe-text.ts";
import type { AdaptedTool } from "./adapt-tool.ts";
import { internalError } from "./internal-error.ts";
import { invalidInputError } from "./invalid-input-error.ts";
import type { McpCaller } from "./mcp-caller.ts";
import { toolEnvelope } from "./tool-envelope.ts";
import { type ToolContext, ToolKind } from "./tools/tool.ts";
import { checkWorkingAttempt, WORKING_ATTEMPT_PARAMETER } from "./working-attempt.ts";

/**
 * One `tools/call`: the token's scope first (whatever the arguments), then the text guard (no NUL,
 * no lone surrogate anywhere), then the arguments against the tool's schema, then `run`. Every failure comes back as a tool error envelope, never as a
 * protocol error or the SDK's plain text: a ServiceError as it is, anything else as `internal`.
 */
export async function callTool(
  adapted: AdaptedTool,
  caller: McpCaller,
  args: unknown,
): Promise<CallToolResult> {
  const started = performance.now();
  const result = await withSpan(
    `tools/call ${adapted.tool.name}`,
    { "mcp.tool": adapted.tool.name },
    async (span) => {
      const answer = await answerToolCall(adapted, caller, args);
      if (answer.isError) span?.setStatus({ code: SpanStatusCode.ERROR });
      return answer;
    },
  );
  // The outcome label is the error code of the catalogue (a closed set), or ok.
  const outcome = result.isError
    ? ((result.structuredContent as ErrorBody | undefined)?.error.code ?? "error")
    : "ok";
  mcpToolCalls.labels(adapted.tool.name, outcome).inc();
  mcpToolCallDuration.labels(adapted.tool.name).observe((performance.now() - started) / 1000);
  return result;
}

async function answerToolCall(
  adapted: AdaptedTool,
  caller: McpCaller,
  args: unknown,
): Promise<CallToolResult> {
  try {
    return toolEnvelope(await runTool(adapted, caller, args), false, caller);
  } catch (error) {
    if (error instanceof ServiceError) return toolEnvelope(error.toBody(), true, caller);
    return toolEnvelope(internalError(caller, error, { tool: adapted.tool.name }).toBody(), true, caller);
  }
}

/**
 * A tool's result for a caller, whichever door the call came through (`/mcp`, or the tool's
 * `GET /api` twin, tool-routes.ts): the scope, the text guard, the arguments against the schema, `run`,
 * then what a read adds (the working Attempt's check, the one-active-Attempt hint). A refusal is
 * thrown as a ServiceError, for the door to send in its own form.
 */
export async function runTool(
  adapted: AdaptedTool,
  caller: ToolContext,
  args: unknown,
): Promise<Record<string, unknown>> {
  const { tool } = adapted;
  checkScope(adapted, caller);
  refuseUnsafeText(args, tool.name);
  const parsed = adapted.input.safeParse(args ?? {});
  if (!parsed.success) throw invalidInputError(tool.name, parsed.error.issues, adapted.acceptedFields);
  const input: Record<string, unknown> = { ...parsed.data };
  const workingAttemptId = input[WORKING_ATTEMPT_PARAMETER];
  if (adapted.stripsWorkingAttempt) delete input[WORKING_ATTEMPT_PARAMETER];
  const result = await tool.run(caller, input);
  if (result === null || typeof result !== "object" || Array.isArray(result)) {
    throw new Error(`tool ${tool.name} returned ${JSON.stringify(result)}, not one JSON object`);
  }
  // Spec 4.1: a read names the caller's working Attempt; the outcome rides beside the result.
  if (tool.kind === ToolKind.read && typeof workingAttemptId === "string") {
    return { ...result, working_attempt: await checkWorkingAttempt(caller, workingAttemptId) };
  }
  // A read on a Problem without one, where the caller has exactly one active Attempt, asks for it.
  if (
    tool.kind === ToolKind.read &&
    tool.privateRead !== true &&
    workingAttemptId === undefined &&
    typeof input.problem === "string" &&
    !("hint" in result)
  ) {
    const hint = await oneActiveAttemptHint(caller.services.sql, caller.principal.user.id, {
      problem: input.problem,
    });
    if (hint) return { ...result, hint };
  }
  return result;
}

/**
 * Forbidden unless the token holds the tool's scope; the error names the tool and the scope, and
 * the way to get it: an OAuth client re-authorizes with the scope (the 403 step-up challenge of
 * scopeChallenge, where the transport sends one), an operator token is replaced by an operator.
 */
function checkScope({ tool }: AdaptedTool, caller: ToolContext): void {
  try {
    requireScope(caller.principal, tool.scope);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    const held = caller.principal.scopes.join(" and ");
    const remedy =
      caller.principal.via === "oauth_token"
        ? `re-authorize this client with the ${tool.scope} scope (OAuth step-up: request scope "${[...caller.principal.scopes, tool.scope].join(" ")}")`
        : `issue one with \`svc-server token issue <handle> --scope ${tool.scope}\``;
    throw new ServiceError(
      "forbidden",
      `${tool.name} needs a token with the ${tool.scope} scope and this one has ${held}: ${remedy}`,
      { ...error.details, tool: tool.name },
    );
  }
}
