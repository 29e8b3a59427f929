import type { FastifyPluginAsync } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { publishedKeys } from "../../attestations/attestation-keys.ts";
import { logOrigin } from "../../attestations/log-origin.ts";
import { readRunAttestations } from "../../attestations/read-run-attestations.ts";
import { readTransparencyLog } from "../../attestations/read-transparency-log.ts";
import type { Services } from "../../core/services/services.ts";
import { publishedRuntimes } from "../../sandbox-images/bind-runtime.ts";
import { viewerOf } from "../../visibility/viewer.ts";
import { fromQueryString } from "../inputs/from-query-string.ts";
import { transparencyLogInput } from "../inputs/transparency-log-inputs.ts";
import { verificationRunId } from "../inputs/verification-inputs.ts";
import { errorResponse, jsonResponse, readErrors } from "./api-responses.ts";
import { readCaller } from "./read-caller.ts";

/** The well-known address of the published keys (docs/attestations.md "Keys"). */
export const ATTESTATION_KEYS_PATH = "/.well-known/svc-attestation-keys";

const publicErrors = {
  400: errorResponse("invalid_input: a parameter breaks a rule; the message names it and the fix."),
  404: errorResponse("not_found: no checkpoint or entry by that number yet."),
} as const;

/**
 * The attestation and transparency-log routes (docs/attestations.md):
 *
 * - `GET /.well-known/svc-attestation-keys`: every signing key with its validity window (public);
 * - `GET /api/transparency-log[?tree_size&log_index&from_size]`: a signed checkpoint and the
 *   proofs asked for (public: leaf hashes only, never entry contents);
 * - `GET /api/runtimes`: each script runtime's bound bytes (ChainID) and, when bound from a
 *   registry, where to copy them from, for `svc verify --replay` (public);
 * - `GET /api/verifications/{id}/attestations`: a run's attestations with their inclusion proofs,
 *   for whoever may read the run (bearer token with the read scope).
 */
export const attestationRoutes: FastifyPluginAsync<{ services: Services }> = async (plain, { services }) => {
  const app = plain.withTypeProvider<ZodTypeProvider>();
  const caller = readCaller(services);

  app.get(
    ATTESTATION_KEYS_PATH,
    {
      schema: {
        operationId: "getAttestationKeys",
        tags: ["attestations"],
        summary: "The service's signing keys",
        description:
          "Every Ed25519 key the service has signed attestations and checkpoints with, newest first, each with " +
          "its validity window (valid_until null: the active key), as PEM and as a signed-note verifier key.",
        response: { 200: jsonResponse("The keys and the log's origin.", z.looseObject({})) },
      },
    },
    async (_request, reply) => {
      const origin = await logOrigin(services.sql, services.baseUrl);
      reply.header("cache-control", "public, max-age=300");
      return { log_origin: origin, keys: await publishedKeys(services.sql, origin) };
    },
  );

  app.get(
    "/api/transparency-log",
    {
      schema: {
        operationId: "getTransparencyLog",
        tags: ["attestations"],
        summary: "Read the transparency log (get_transparency_log)",
        description:
          "The newest signed checkpoint (or the one of `tree_size`), with `log_index`: that entry's leaf hash " +
          "and inclusion proof, with `from_size`: the consistency proof from that earlier size. No credential.",
        querystring: fromQueryString(transparencyLogInput),
        response: {
          200: jsonResponse("The checkpoint and the proofs asked for.", z.looseObject({})),
          ...publicErrors,
        },
      },
    },
    async (request) => readTransparencyLog(services.sql, request.query),
  );

  app.get(
    "/api/runtimes",
    {
      schema: {
        operationId: "listRuntimes",
        tags: ["attestations"],
        summary: "The script runtimes' bound bytes",
        description:
          "Each script runtime of this deployment with the OCI ChainID of the image it is bound to (what runs record " +
          "as runtime_bytes_digest) and, when it was bound from a registry, the docker:// reference to copy it from, " +
          "so `svc verify --replay` can run a verdict again on the same bytes. No credential.",
        response: {
          200: jsonResponse(
            "The runtimes.",
            z.object({
              runtimes: z.array(
                z.object({
                  image_ref: z.string(),
                  runtime_bytes_digest: z.string().nullable(),
                  source: z.string().nullable(),
                }),
              ),
            }),
          ),
        },
      },
    },
    async (_request, reply) => {
      reply.header("cache-control", "public, max-age=300");
      return { runtimes: await publishedRuntimes(services) };
    },
  );

  app.get(
    "/api/verifications/:id/attestations",
    {
      onRequest: caller.onRequest,
      schema: {
        operationId: "getRunAttestations",
        tags: ["attestations"],
        summary: "A run's attestations (get_run_attestations)",
        description:
          "The signed in-toto attestations of one run (its finish, then any revocation or redaction), each as a " +
          "DSSE envelope with its log index and inclusion proof in the checkpoint beside them.",
        params: z.strictObject({ id: verificationRunId }),
        response: { 200: jsonResponse("The run's attestations.", z.looseObject({})), ...readErrors },
      },
    },
    async (request) => {
      const { principal } = caller.of(request);
      return readRunAttestations(services.sql, viewerOf(principal), request.params.id, services.clock());
    },
  );
};
