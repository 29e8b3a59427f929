import { type Command, InvalidArgumentError } from "commander";
import type { Logger } from "pino";
import type { Services } from "../../core/services/services.ts";
import { systemClock } from "../../core/time/clock.ts";
import { removeExternalSystemAttester } from "../../external-systems/remove-external-system-attester.ts";
import { listStuckWork } from "../../operations/list-stuck-work.ts";
import { redactStageLog } from "../../verification/redact-stage-log.ts";
import { revokeImplementationRuns } from "../../verification/revoke-implementation-runs.ts";
import { startManualVerification } from "../../verification/start-manual-verification.ts";
import { yankVerifierImplementation } from "../../verification/yank-verifier-implementation.ts";
import {
  reasonMd,
  redactionReason,
  stageKey,
  submissionId,
  verificationRunId,
  verifierImplementationId,
} from "../inputs/verification-inputs.ts";
import { openBlobStore } from "./open-services.ts";
import { checkedBy } from "./operator-arguments.ts";
import type { ServerConfig } from "./server-config.ts";
import { stuckWorkTable } from "./stuck-work-table.ts";
import { withMigratedDatabase } from "./with-migrated-database.ts";

/** What the operator work commands need from `runServerCli`. */
export interface OperatorCommandContext {
  config: () => ServerConfig;
  operatorLog: () => Logger;
  print: (value: unknown) => void;
  write: (text: string) => void;
}

const REASON = "why, in Markdown (1 to 10000 characters); kept with the record and shown to its readers";

/**
 * The operator's shell doors to the operator tools (redact_stage_log, revoke_implementation_runs,
 * yank_verifier_implementation, start_manual_verification, attester removal) and the stuck-work
 * listing. Each calls the domain function the tool calls, with a null viewer: an operator with
 * shell access, recorded as a null actor; the arguments are checked by the tools' own input rules.
 */
export function addOperatorWorkCommands(program: Command, ctx: OperatorCommandContext): void {
  const { config, operatorLog, print } = ctx;
  const run = <T>(fn: Parameters<typeof withMigratedDatabase<T>>[2]) =>
    withMigratedDatabase(config(), operatorLog(), fn);

  program
    .command("redact-log")
    .description(
      "redact one stage's captured log (the redact_stage_log tool): its bytes become a short notice, the original hash and size stay in its redaction, recorded with redacted_by_user_id null",
    )
    .argument("<verification-run-id>", "the run (vrn_...)", checkedBy(verificationRunId))
    .argument("<stage-key>", "the stage whose log to redact", checkedBy(stageKey))
    .requiredOption(
      "--reason <reason>",
      "secret_material, personal_data or legal_requirement",
      checkedBy(redactionReason),
    )
    .action(
      async (runId: string, stage: string, options: { reason: (typeof redactionReason)["_output"] }) => {
        const settings = config();
        const redaction = await run(async (sql) =>
          redactStageLog({ sql, clock: systemClock, blobs: await openBlobStore(settings) }, null, {
            verification_run_id: runId,
            stage_key: stage,
            reason: options.reason,
          }),
        );
        print(redaction);
      },
    );

  const implementation = program
    .command("implementation")
    .description("act on a verifier implementation as an operator");
  // Both act on an implementation with a reason and differ only in the tool they stand for.
  const implementationActions: Array<{
    name: string;
    description: string;
    act: (
      services: Pick<Services, "sql" | "clock">,
      viewer: null,
      input: { verifier_implementation_id: string; reason_md: string },
    ) => Promise<unknown>;
  }> = [
    {
      name: "revoke-runs",
      description:
        "revoke every finished run a stage of which ran the implementation (the revoke_implementation_runs tool), recorded with revoked_by_user_id null",
      act: revokeImplementationRuns,
    },
    {
      name: "yank",
      description:
        "yank the implementation so it runs nothing new (the yank_verifier_implementation tool), recorded with yanked_by_user_id null",
      act: yankVerifierImplementation,
    },
  ];
  for (const action of implementationActions) {
    implementation
      .command(action.name)
      .description(action.description)
      .argument(
        "<verifier-implementation-id>",
        "the implementation (vfi_...)",
        checkedBy(verifierImplementationId),
      )
      .requiredOption("--reason <text>", REASON, checkedBy(reasonMd))
      .action(async (id: string, options: { reason: string }) => {
        print(
          await run((sql) =>
            action.act({ sql, clock: systemClock }, null, {
              verifier_implementation_id: id,
              reason_md: options.reason,
            }),
          ),
        );
      });
  }

  program
    .command("rerun")
    .description(
      "verify an active Submission again as a new run with trigger manual (the start_manual_verification tool), recorded with requested_by_user_id null",
    )
    .argument("<submission-id>", "the Submission (sub_...)", checkedBy(submissionId))
    .action(async (id: string) => {
      print(await run((sql) => startManualVerification(sql, null, id)));
    });

  program
    .command("stuck")
    .description(
      "list stuck work, oldest first: implementations with conformance pending, runs queued or running, webhook subscriptions whose deliveries fail",
    )
    .option("--json", "print one JSON object instead of tables")
    .option("--limit <n>", "at most this many rows per list, 1 to 1000 (default 100)", parseLimit)
    .action(async (options: { json?: boolean; limit?: number }) => {
      const now = systemClock();
      const stuck = await run((sql) => listStuckWork(sql, now, options.limit ?? 100));
      if (options.json) print(stuck);
      else ctx.write(stuckWorkTable(stuck));
    });
}

/** Adds `external-system remove-attester` to the `external-system` command. */
export function addAttesterRemovalCommand(externalSystem: Command, ctx: OperatorCommandContext): void {
  externalSystem
    .command("remove-attester")
    .description(
      'remove a user from the attesters of a partner system; the removal is kept with who added them and removed_by_user_id null; prints {"removal": ...}',
    )
    .argument("<system>", "the system's name, exactly as registered")
    .argument("<handle>", "the attester to remove")
    .requiredOption("--reason <text>", REASON, checkedBy(reasonMd))
    .action(async (system: string, handle: string, options: { reason: string }) => {
      ctx.print(
        await withMigratedDatabase(ctx.config(), ctx.operatorLog(), (sql) =>
          removeExternalSystemAttester(sql, null, { system, attester: handle, reason_md: options.reason }),
        ),
      );
    });
}

/** The parser of `--limit`: a whole number from 1 to 1000. */
function parseLimit(value: string): number {
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > 1000) {
    throw new InvalidArgumentError("use a whole number from 1 to 1000");
  }
  return limit;
}
