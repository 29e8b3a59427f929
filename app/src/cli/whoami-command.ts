import { ServiceCallError } from "../client/service-call-error.ts";
import { withRetries } from "../client/with-retries.ts";
import type { CliDeps } from "./cli-deps.ts";
import type { CliIo } from "./cli-io.ts";
import { connectService } from "./connect-service.ts";
import { retryNotice } from "./retry-notice.ts";

/** The object entries of an envelope's list field (none when it is absent). */
function records(value: unknown): Array<Record<string, unknown>> {
  return Array.isArray(value)
    ? value.filter((v): v is Record<string, unknown> => typeof v === "object" && v !== null)
    : [];
}

/**
 * `svc whoami [--json]`: who the credential signs in as, through the `whoami` tool (spec 4.1:
 * `{user, memberships, work_role}`; this service adds the token's scopes and capabilities).
 * Prints handle, id, work role, scopes, capabilities, roles, organizations, open invitations and
 * every grant with grantor and time, or the envelope with `--json`.
 */
export async function whoamiCommand(
  options: { json?: boolean; server?: string },
  io: CliIo,
  deps: CliDeps,
): Promise<number> {
  const { client, server } = await connectService(options, deps);
  try {
    const envelope = await withRetries(() => client.callTool("whoami"), {
      sleep: deps.sleep,
      random: deps.random,
      onRetry: (info) => io.stderr(retryNotice("whoami", info)),
    });
    if (options.json) {
      io.stdout(`${JSON.stringify(envelope, null, 2)}\n`);
      return 0;
    }
    const user = (envelope.user ?? {}) as Record<string, unknown>;
    const scopes =
      envelope.scopes ?? user.scopes ?? (envelope.token as Record<string, unknown> | undefined)?.scopes;
    const rows: Array<[string, string]> = [
      ["handle", String(user.handle ?? "?")],
      ["id", String(user.id ?? user.user_id ?? "?")],
      ["work_role", String(envelope.work_role ?? user.work_role ?? "?")],
      ["scopes", Array.isArray(scopes) ? scopes.join(" ") : String(scopes ?? "?")],
    ];
    if (Array.isArray(envelope.capabilities)) {
      rows.push(["capabilities", envelope.capabilities.join(" ") || "none"]);
    }
    if (Array.isArray(envelope.roles)) rows.push(["roles", envelope.roles.join(" ")]);
    for (const m of records(envelope.memberships)) {
      rows.push(["organization", `${m.organization_slug} (${m.role}, joined ${m.joined_at})`]);
    }
    for (const i of records(envelope.invitations)) {
      rows.push([
        "invited",
        `${i.organization_slug} as ${i.role} by ${i.invited_by_handle} (accept_organization_invitation)`,
      ]);
    }
    // Every grant with its grantor and time; a null grantor is an operator (svc-server).
    for (const g of records(envelope.grants)) {
      const by = (handle: unknown) => (handle ? String(handle) : "an operator");
      const revoked = g.revoked_at ? `, revoked ${g.revoked_at} by ${by(g.revoked_by_handle)}` : "";
      rows.push(["grant", `${g.access} by ${by(g.granted_by_handle)} ${g.granted_at}${revoked}`]);
    }
    rows.push(["server", server]);
    const lines = rows.map(([label, value]) => `${label.padEnd(13)}${value}`);
    io.stdout(`${lines.join("\n")}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ServiceCallError)) throw error;
    const hint =
      error.code === "unauthorized"
        ? "; the token is unknown or revoked: run svc login --token <token> --server <url>"
        : "";
    io.stderr(`svc whoami: [${error.code}] ${error.message}${hint}\n`);
    return 1;
  } finally {
    await client.close();
  }
}
