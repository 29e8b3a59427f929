import type { ReadResourceResult } from "@modelcontextprotocol/server";
import { Scope } from "@svc/schemas";
import { oneActiveAttemptHint } from "../../attempts/attempt-hints.ts";
import { ServiceError } from "../../core/errors/service-error.ts";
import { requireScope } from "../../users/require-scope.ts";
import { refuseUnsafeText } from "../inputs/unsafe-text.ts";
import type { AdaptedResourceTemplate } from "./adapt-resource-template.ts";
import type { McpCaller } from "./mcp-caller.ts";
import { resourceError } from "./resource-error.ts";
import {
  ATTEMPT_ID_PATTERN,
  checkWorkingAttempt,
  splitResourceUri,
  WORKING_ATTEMPT_PARAMETER,
} from "./working-attempt.ts";

/**
 * One `resources/read` (spec 4.1): a trailing `working_attempt_id` comes off before matching,
 * the first template that matches reads the resource, each content entry echoes the URI exactly
 * as requested, and with a working Attempt each carries `_meta.working_attempt` with the outcome;
 * without one, a read of a Problem revision's resource where the caller has exactly one active
 * Attempt on that Problem carries `_meta.hint` asking for it (spec 4.1).
 * Failures are MCP errors naming the URI.
 */
export async function readResource(
  templates: readonly AdaptedResourceTemplate[],
  caller: McpCaller,
  sent: unknown,
): Promise<ReadResourceResult> {
  const requested = typeof sent === "string" ? sent : "";
  try {
    requireScope(caller.principal, Scope.read);
    if (typeof sent !== "string" || sent === "") {
      throw new ServiceError(
        "invalid_input",
        "resources/read needs `uri`, the resource's URI as a string: resources/templates/list gives the URI forms",
        { field: "uri" },
      );
    }
    refuseUnsafeText(requested, "resources/read", "uri");
    const { uri, workingAttemptId } = splitResourceUri(requested);
    if (workingAttemptId !== undefined && !ATTEMPT_ID_PATTERN.test(workingAttemptId)) {
      throw new ServiceError(
        "invalid_input",
        `${WORKING_ATTEMPT_PARAMETER} must be an Attempt id (att_ and 10 to 32 characters of 0-9 and a-z): fix it or leave it out`,
        { field: WORKING_ATTEMPT_PARAMETER },
      );
    }
    for (const { template, matcher } of templates) {
      const variables = matcher.match(uri);
      if (!variables) continue;
      const contents = await template.read(caller, uri, variables);
      const outcome = workingAttemptId && (await checkWorkingAttempt(caller, workingAttemptId));
      // A read of a Problem's revision without one, where the caller has one active Attempt, asks for it.
      const hint =
        workingAttemptId === undefined && typeof variables.problem_revision_id === "string"
          ? await oneActiveAttemptHint(caller.services.sql, caller.principal.user.id, {
              revisionId: variables.problem_revision_id,
            })
          : undefined;
      return {
        contents: contents.map(({ uri: entryUri, mimeType, text, blob, _meta }) => {
          const body = text !== undefined ? { text } : blob !== undefined ? { blob } : undefined;
          if (!body)
            throw new Error(`template ${template.name} returned ${entryUri} with neither text nor blob`);
          const meta =
            outcome || hint
              ? { ..._meta, ...(outcome && { working_attempt: outcome }), ...(hint && { hint }) }
              : _meta;
          return {
            uri: entryUri === uri ? requested : entryUri,
            mimeType,
            ...body,
            ...(meta && { _meta: meta }),
          };
        }),
      };
    }
    throw new ServiceError(
      "not_found",
      "no resource has this URI: resources/templates/list gives the URI forms",
      {
        uri: requested,
      },
    );
  } catch (error) {
    throw resourceError(caller, requested || undefined, error);
  }
}
