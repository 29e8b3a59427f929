import { ServiceCallError } from "../client/service-call-error.ts";
import type { CliDeps } from "./cli-deps.ts";
import { type CliIo, UsageError } from "./cli-io.ts";
import { connectService } from "./connect-service.ts";

/** What a yank names: the tool that yanks it and the id field the tool takes. */
const YANKABLE = {
  verifier: { tool: "yank_verifier_implementation", field: "verifier_implementation_id", prefix: "vfi_" },
  protocol: { tool: "yank_review_protocol", field: "review_protocol_id", prefix: "rpt_" },
} as const;

/**
 * `svc verifier yank <vfi_id> --reason <md>` and `svc protocol yank <rpt_id> --reason <md>`
 * (spec 3 and 9.5): the publisher or an administrator withdraws a VerifierImplementation or a
 * ReviewProtocol, once, through the service's yank tool. Prints the yank (`--json`: the tool's
 * envelope). Exit 0 yanked, 1 refused by the service (already yanked, not yours, not found),
 * 2 bad usage.
 */
export async function yankCommand(
  what: keyof typeof YANKABLE,
  id: string,
  options: { reason?: string; json?: boolean; server?: string },
  io: CliIo,
  deps: CliDeps,
): Promise<number> {
  const { tool, field, prefix } = YANKABLE[what];
  if (!id.startsWith(prefix))
    throw new UsageError(`name the ${what} to yank by its ${prefix} id, not "${id}"`);
  if (!options.reason) throw new UsageError("say why with --reason <markdown>: a yank keeps its reason");
  const { client } = await connectService(options, deps);
  try {
    const envelope = await client.callTool(tool, { [field]: id, reason_md: options.reason });
    if (options.json) {
      io.stdout(`${JSON.stringify(envelope, null, 2)}\n`);
      return 0;
    }
    const yank = envelope.yank as { yanked_at: string; yanked_by_user_id: string; reason_md: string };
    const lines = [
      `yanked        ${id}`,
      `yanked_at     ${yank.yanked_at}`,
      `reason        ${yank.reason_md}`,
    ];
    if (what === "verifier") {
      lines.push(
        `current       ${String(envelope.current_implementation_id ?? "none (the stage cannot run)")}`,
      );
      const waiting = (envelope.waiting_verification_run_ids as string[] | undefined) ?? [];
      if (waiting.length > 0) lines.push(`woken runs    ${waiting.join(" ")}`);
    }
    io.stdout(`${lines.join("\n")}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof ServiceCallError)) throw error;
    io.stderr(`svc ${what} yank: ${error.code}: ${error.message}\n`);
    return 1;
  } finally {
    await client.close();
  }
}
