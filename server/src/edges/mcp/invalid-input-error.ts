import type { z } from "zod";
import { ServiceError } from "../../core/errors/service-error.ts";

/** One rejected argument, as the error's `issues` detail lists it. */
interface InputIssue {
  /** A dotted path into the arguments (`artifacts.0.role`); "" for the arguments object itself. */
  field: string;
  message: string;
}

/**
 * The `invalid_input` error for arguments a tool's schema rejected: the message names each field
 * and what to change, `field` is the first one, and `issues` lists them all. Unknown fields are
 * named one by one, with the fields the tool accepts.
 */
export function invalidInputError(
  toolName: string,
  issues: readonly z.core.$ZodIssue[],
  acceptedFields: readonly string[],
): ServiceError {
  const listed: InputIssue[] = issues.flatMap((issue): InputIssue[] => {
    const at = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      // The accepted names are known for the arguments object only, not for nested objects.
      const accepted = at
        ? ""
        : acceptedFields.length > 0
          ? ` (${toolName} accepts ${acceptedFields.join(", ")})`
          : ` (${toolName} takes no arguments)`;
      return issue.keys.map((key) => ({
        field: at ? `${at}.${key}` : key,
        message: `is not a field of ${at || toolName}: remove it${accepted}`,
      }));
    }
    return [{ field: at, message: issue.message }];
  });
  const summary = listed
    .map(({ field, message }) => (field ? `"${field}" ${lowerFirst(message)}` : lowerFirst(message)))
    .join("; ");
  return new ServiceError(
    "invalid_input",
    `invalid arguments for ${toolName}: ${summary}. Fix them as described; tools/list gives the tool's inputSchema`,
    { field: listed[0]?.field ?? "", issues: listed },
  );
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
