import { z } from "zod";
import { readRunAttestations } from "../../../attestations/read-run-attestations.ts";
import { readTransparencyLog } from "../../../attestations/read-transparency-log.ts";
import { viewerOf } from "../../../visibility/viewer.ts";
import { transparencyLogInput } from "../../inputs/transparency-log-inputs.ts";
import { verificationRunId } from "../../inputs/verification-inputs.ts";
import { Toolset } from "../toolsets.ts";
import { defineTool, type Tool, ToolKind } from "./tool.ts";

const getRunAttestationsTool = defineTool({
  name: "get_run_attestations",
  title: "Get a run's signed attestations",
  description:
    "The signed in-toto attestations of one verification run (DSSE envelopes, Ed25519): its finish, then any " +
    "revocation or log redaction, each with its transparency-log index and inclusion proof in the checkpoint beside " +
    "them. Check them offline with `svc attestation verify <run-id>`. Yours, or on a Problem you manage.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.workbench,
  apiRoute: "/api/verifications/:id/attestations",
  apiRouteByHand: true,
  input: z.strictObject({ verification_run_id: verificationRunId }),
  async run({ services, principal }, input) {
    return {
      ...(await readRunAttestations(
        services.sql,
        viewerOf(principal),
        input.verification_run_id,
        services.clock(),
      )),
    };
  },
});

const getTransparencyLogTool = defineTool({
  name: "get_transparency_log",
  title: "Read the transparency log",
  description:
    "The log every attestation is appended to: the newest signed checkpoint (C2SP tlog-checkpoint note), or the one " +
    "of tree_size; with log_index, that entry's leaf hash and inclusion proof; with from_size, the consistency proof " +
    "from an earlier checkpoint you saw. Keys: GET /.well-known/svc-attestation-keys.",
  scope: "read",
  kind: ToolKind.read,
  toolset: Toolset.workbench,
  apiRoute: "/api/transparency-log",
  apiRouteByHand: true,
  input: transparencyLogInput,
  async run({ services }, input) {
    return { ...(await readTransparencyLog(services.sql, input)) };
  },
});

/** The attestation tools (docs/attestations.md). */
export const attestationTools: readonly Tool[] = [getRunAttestationsTool, getTransparencyLogTool];
