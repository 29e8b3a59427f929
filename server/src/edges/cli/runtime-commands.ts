import { RuntimeBackend } from "@svc/schemas";
import { type Command, InvalidArgumentError } from "commander";
import { systemClock } from "../../core/time/clock.ts";
import { bindRuntime, listRuntimeBindings } from "../../sandbox-images/bind-runtime.ts";
import { localSandboxRunnerAt } from "./open-services.ts";
import type { OperatorCommandContext } from "./operator-work-commands.ts";
import { withMigratedDatabase } from "./with-migrated-database.ts";

/**
 * `svc-server runtime bind|list` (docs/sandbox.md "Runtimes from images"): the shell door to
 * POST /admin/sandbox-runtimes. Binding a runtime to an image for bubblewrap copies and unpacks it
 * here (skopeo, umoci) and pins its ChainID; workers on other hosts unpack it from the same source
 * on first use. Recorded with bound_by_user_id null: an operator with shell access.
 */
export function addRuntimeCommands(program: Command, ctx: OperatorCommandContext): void {
  const { config, operatorLog, print } = ctx;
  const runtime = program
    .command("runtime")
    .description("bind script runtimes to the images that realise them");
  runtime
    .command("bind")
    .description(
      "bind a catalogue runtime once per deployment: --backend bwrap with an image source (docker-daemon:<name>, docker://<ref>, oci:<dir>) runs checkers in that image's root; --backend docker with a local image name or id",
    )
    .argument("<image-ref>", "the catalogue runtime, e.g. svc-runtime/python:1")
    .argument("<local-image>", "the image source (bwrap) or local image (docker)")
    .option("--backend <backend>", "bwrap or docker", parseBackend, RuntimeBackend.bwrap)
    .action(async (imageRef: string, localImage: string, options: { backend: RuntimeBackend }) => {
      const settings = config();
      const bound = await withMigratedDatabase(settings, operatorLog(), async (sql) => {
        const sandbox = await localSandboxRunnerAt(settings.dataDir, process.env);
        try {
          return await bindRuntime({ sql, clock: systemClock, sandbox }, null, {
            image_ref: imageRef,
            local_image: localImage,
            backend: options.backend,
          });
        } finally {
          await sandbox.close?.();
        }
      });
      print({ runtime: bound });
    });
  runtime
    .command("list")
    .description("print every runtime binding of this deployment (as GET /admin/sandbox-runtimes)")
    .action(async () => {
      print({
        runtimes: await withMigratedDatabase(config(), operatorLog(), (sql) => listRuntimeBindings({ sql })),
      });
    });
}

function parseBackend(value: string): RuntimeBackend {
  if (!(Object.values(RuntimeBackend) as string[]).includes(value))
    throw new InvalidArgumentError("use bwrap or docker");
  return value as RuntimeBackend;
}
