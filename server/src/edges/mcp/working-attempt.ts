import { IdPrefix, idPattern } from "@svc/schemas";
import { checkWorkingAttemptId, type WorkingAttemptOutcome } from "../../attempts/check-working-attempt.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { workingAttemptId } from "../inputs/discovery-inputs.ts";
import type { ToolContext } from "./tools/tool.ts";

/** The name of the optional parameter that names the caller's own Attempt on reads (spec 4.1). */
export const WORKING_ATTEMPT_PARAMETER = "working_attempt_id";

/** An Attempt id: `att_` and 10 to 32 characters of [0-9a-z]. */
export const ATTEMPT_ID_PATTERN = idPattern(IdPrefix.attempt);

/** The field the adapter adds to every read tool whose input lacks it: the one discovery declares. */
export const workingAttemptField = workingAttemptId;

/** A resource URI with its trailing `working_attempt_id` taken off. */
export interface SplitResourceUri {
  /** The URI to match against the templates. */
  uri: string;
  /** The value of the trailing parameter, undefined without one. Not yet checked against the id pattern. */
  workingAttemptId: string | undefined;
}

/**
 * Takes the trailing `working_attempt_id=<value>` off a resource URI (spec 4.1): only the last
 * query parameter counts, and only when its name is exactly `working_attempt_id` (no
 * percent-encoding, no other spelling). Earlier `working_attempt_id` parameters right before it
 * come off too, ignored: `?working_attempt_id=a&working_attempt_id=b` reads with `b`, as the
 * last one counts, rather than failing to match any template.
 */
export function splitResourceUri(uri: string): SplitResourceUri {
  const last = takeLastWorkingAttempt(uri);
  if (!last) return { uri, workingAttemptId: undefined };
  let rest = last.uri;
  for (let earlier = takeLastWorkingAttempt(rest); earlier; earlier = takeLastWorkingAttempt(rest)) {
    rest = earlier.uri;
  }
  return { uri: rest, workingAttemptId: last.value };
}

/** The URI without its last query parameter, when that parameter is `working_attempt_id=<value>`. */
function takeLastWorkingAttempt(uri: string): { uri: string; value: string } | null {
  const query = uri.indexOf("?");
  // A fragment ends the URI, so with one there is no trailing query parameter.
  if (query < 0 || uri.includes("#")) return null;
  const separator = Math.max(uri.lastIndexOf("&"), query);
  const last = uri.slice(separator + 1);
  const prefix = `${WORKING_ATTEMPT_PARAMETER}=`;
  if (!last.startsWith(prefix)) return null;
  return { uri: uri.slice(0, separator), value: last.slice(prefix.length) };
}

export type { WorkingAttemptOutcome } from "../../attempts/check-working-attempt.ts";

/**
 * Checks a working Attempt id for the caller against their own Attempts (the attempts domain's
 * `checkWorkingAttemptId`): resource reads report the outcome in each entry's
 * `_meta.working_attempt`, tool reads in the result's `working_attempt`.
 */
export async function checkWorkingAttempt(context: ToolContext, id: string): Promise<WorkingAttemptOutcome> {
  return checkWorkingAttemptId(context.services.sql, viewerOf(context.principal), id);
}
