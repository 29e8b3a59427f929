import type { Command } from "commander";
import { publishedKeys, rotateSigningKey } from "../../attestations/attestation-keys.ts";
import { logOrigin } from "../../attestations/log-origin.ts";
import { systemClock } from "../../core/time/clock.ts";
import type { OperatorCommandContext } from "./operator-work-commands.ts";
import { withMigratedDatabase } from "./with-migrated-database.ts";

/**
 * `svc-server attestation-key list|rotate` (docs/attestations.md "Keys"): the published keys with
 * their windows, and rotation to a new key (generated, or SVC_ATTESTATION_KEY when set). Public
 * halves only are ever printed.
 */
export function addAttestationKeyCommands(program: Command, ctx: OperatorCommandContext): void {
  const { config, operatorLog, print } = ctx;
  const keys = program
    .command("attestation-key")
    .description("the keys attestations and log checkpoints are signed with");
  keys
    .command("list")
    .description(
      "print every published key, newest first, with its validity window (as /.well-known/svc-attestation-keys)",
    )
    .action(async () => {
      const listed = await withMigratedDatabase(config(), operatorLog(), async (sql) =>
        publishedKeys(sql, await logOrigin(sql, config().baseUrl)),
      );
      print({ keys: listed });
    });
  keys
    .command("rotate")
    .description(
      "close the active key's window now and sign from now on with a new key (generated and kept in the database, or SVC_ATTESTATION_KEY when set); retired keys stay published",
    )
    .action(async () => {
      const rotated = await withMigratedDatabase(config(), operatorLog(), async (sql) => {
        await rotateSigningKey(sql, systemClock(), process.env.SVC_ATTESTATION_KEY || undefined);
        return publishedKeys(sql, await logOrigin(sql, config().baseUrl));
      });
      print({ active: rotated[0], keys: rotated });
    });
}
