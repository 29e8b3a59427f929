import { createPublicKey } from "node:crypto";
import {
  canonicalJson,
  type DsseEnvelope,
  keyIdOf,
  leafHash,
  openCheckpoint,
  openEnvelope,
  parseNoteVerifierKey,
  type RunStatement,
  verifyConsistency,
  verifyInclusion,
} from "@svc/app";
import { afterAll, beforeAll, expect, it } from "vitest";
import { rotateSigningKey } from "../../src/attestations/attestation-keys.ts";
import { sequenceAttestations } from "../../src/attestations/sequence-attestations.ts";
import type { Services } from "../../src/core/services/services.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import type { Principal } from "../../src/users/principal.ts";
import { executeVerificationRun } from "../../src/verification/execute-verification-run.ts";
import { redactStageLog } from "../../src/verification/redact-stage-log.ts";
import { rerunVerification } from "../../src/verification/rerun-verification.ts";
import { revokeVerification } from "../../src/verification/revoke-verification.ts";
import { viewerOf } from "../../src/visibility/viewer.ts";
import { newAuthor, newUser } from "../authoring/support/authoring-harness.ts";
import { clientLines, envelopeOf, type TestClient } from "../edges/mcp/support/mcp-clients.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import {
  type PublishedProblem,
  passConformance,
  publishProblem,
  seedSubmission,
} from "../verification/support/verification-harness.ts";

/**
 * Issue 34: every finished run gets an in-toto Statement in a DSSE envelope signed with the
 * service's Ed25519 key, appended to an RFC 9162 log with signed C2SP checkpoints; revocation makes
 * a new attestation that follows the first; keys rotate and stay verifiable.
 */
describeWithDatabase("signed attestations and the transparency log", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let solver: Principal;
  let stranger: Principal;
  let operator: Principal;
  let sat: PublishedProblem;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    const author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
    stranger = await newUser(db.sql);
    operator = await newUser(db.sql, { admin: true });
    sat = await publishProblem(services, author, "valid-builtin-sat");
    await passConformance(db.sql, sat.verifier_contract_id);
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await app?.close();
  });

  const assignment = (text: string) => [
    { role: "assignment", filename: "a.txt", media_type: "text/plain", content: text },
  ];
  async function finishedRun(text: string) {
    const seeded = await seedSubmission(services, solver, sat, assignment(text));
    await executeVerificationRun(services, seeded.verification_run_id);
    return seeded;
  }
  async function get(path: string, who?: Principal) {
    const headers: Record<string, string> = {};
    if (who) headers.authorization = `Bearer ${(await issueToken(db.sql, who.user.handle, ["read"])).token}`;
    const response = await fetch(`${app.url}${path}`, { headers });
    return { status: response.status, body: (await response.json()) as any };
  }
  async function trustedKeys() {
    const { body } = await get("/.well-known/svc-attestation-keys");
    return {
      origin: body.log_origin as string,
      envelopeKeys: body.keys.map((key: any) => {
        const raw = createPublicKey(key.public_key_pem).export({ format: "der", type: "spki" }).subarray(12);
        return { keyId: key.key_id, publicKey: raw };
      }),
      noteKeys: body.keys.map((key: any) => parseNoteVerifierKey(key.note_verifier_key)!),
      keys: body.keys,
    };
  }

  it("signs a finished run's Statement, appends it to the log and proves it is in a signed checkpoint", async () => {
    const run = await finishedRun("v 1 2 -3 0\n");
    const queued =
      await db.sql`select reason from attestation_queue where verification_run_id = ${run.verification_run_id}`;
    expect(queued.map((row) => row.reason)).toEqual(["finished"]);
    // Nothing is in the log until the sequencer integrates it, after the run's commit.
    const before = await get(`/api/verifications/${run.verification_run_id}/attestations`, solver);
    expect(before.body).toMatchObject({ attestations: [], pending: true });

    const batch = await sequenceAttestations(services);
    expect(batch.appended).toBeGreaterThanOrEqual(1);
    const { status, body } = await get(`/api/verifications/${run.verification_run_id}/attestations`, solver);
    expect(status).toBe(200);
    expect(body.pending).toBe(false);
    expect(body.attestations).toHaveLength(1);
    const [attestation] = body.attestations;

    const trusted = await trustedKeys();
    const opened = openEnvelope(attestation.envelope as DsseEnvelope, trusted.envelopeKeys);
    expect(opened.ok).toBe(true);
    const statement = JSON.parse((opened as { payload: Buffer }).payload.toString()) as RunStatement;
    expect(statement._type).toBe("https://in-toto.io/Statement/v1");
    expect(statement.predicateType).toBe("https://svc.dev/attestations/verification-run/v1");
    expect(statement.subject).toEqual([
      {
        name: expect.stringMatching(/^assignment\/art_/),
        digest: { sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
      },
    ]);
    expect(statement.predicate).toMatchObject({
      reason: "finished",
      supersedes: null,
      run: { verification_run_id: run.verification_run_id, result: "verified", trigger: "submission" },
      verifier_contract: { verifier_contract_id: sat.verifier_contract_id },
    });
    expect(statement.predicate.stages[0]).toMatchObject({
      kind: "sandbox",
      result: "verified",
      sandbox: { backend: "builtin", runtime_image_digest: expect.stringMatching(/^sha256:/) },
    });

    const checkpoint = openCheckpoint(body.checkpoint.note, trusted.noteKeys);
    expect(checkpoint.ok).toBe(true);
    const { treeSize, rootHash } = (checkpoint as { checkpoint: { treeSize: number; rootHash: Buffer } })
      .checkpoint;
    expect(treeSize).toBe(body.checkpoint.tree_size);
    const leaf = leafHash(Buffer.from(canonicalJson(attestation.envelope)));
    const proof = attestation.inclusion_proof.hashes.map((h: string) => Buffer.from(h, "base64"));
    expect(verifyInclusion(leaf, attestation.log_index, treeSize, proof, rootHash)).toBeNull();

    // get_verification carries the log index.
    const { token } = await issueToken(db.sql, solver.user.handle, ["read"]);
    const client = await clientLines[0].connect(app.url, token);
    clients.push(client);
    const result = envelopeOf(
      await client.callTool("get_verification", { verification_run_id: run.verification_run_id }),
    );
    expect(result).toMatchObject({ attestation_log_index: attestation.log_index });

    // The run page says where the attestation is and how to check it.
    const page = await fetch(`${app.url}/verifications/${run.verification_run_id}`, {
      headers: { authorization: `Bearer ${token}`, accept: "text/html" },
    });
    const text = await page.text();
    expect(text).toContain(`data-testid="log-index">${attestation.log_index}<`);
    expect(text).toContain(`value="npx svc attestation verify ${run.verification_run_id}"`);
    expect(text).toContain(`value="npx svc verify --replay ${run.verification_run_id}"`);
  });

  it("refuses the envelope to anyone who may not read the run, but serves the log to everyone", async () => {
    const run = await finishedRun("v 1 2 -3 0\n");
    await sequenceAttestations(services);
    expect((await get(`/api/verifications/${run.verification_run_id}/attestations`, stranger)).status).toBe(
      404,
    );
    expect((await get(`/api/verifications/${run.verification_run_id}/attestations`)).status).toBe(401);
    const log = await get("/api/transparency-log?log_index=0&from_size=1");
    expect(log.status).toBe(200);
    expect(log.body.entry).toMatchObject({ log_index: 0, leaf_hash: expect.any(String) });
    expect(JSON.stringify(log.body)).not.toContain("payload");
  });

  it("attests a revocation as a new entry that follows the first; the first is never rewritten", async () => {
    const run = await finishedRun("v 1 2 -3 0\n");
    await sequenceAttestations(services);
    const first = (await get(`/api/verifications/${run.verification_run_id}/attestations`, solver)).body
      .attestations[0];
    await revokeVerification(services, viewerOf(operator), {
      verification_run_id: run.verification_run_id,
      reason_md: "the checker was wrong",
    });
    await sequenceAttestations(services);
    const { body } = await get(`/api/verifications/${run.verification_run_id}/attestations`, solver);
    expect(body.attestations.map((a: any) => a.reason)).toEqual(["finished", "revoked"]);
    expect(body.attestations[0].envelope).toEqual(first.envelope);
    const second = body.attestations[1];
    expect(second.supersedes_log_index).toBe(first.log_index);
    const statement = JSON.parse(Buffer.from(second.envelope.payload, "base64").toString()) as RunStatement;
    expect(statement.predicate.supersedes).toEqual({
      log_index: first.log_index,
      payload_sha256: first.payload_sha256,
    });
    expect(statement.predicate.run.revocation).toMatchObject({
      reason_sha256: expect.stringMatching(/^sha256:/),
    });
  });

  it("attests a log redaction after the finish, and a rerun as following the Submission's earlier run", async () => {
    const run = await finishedRun("v 1 2 -3 0\n");
    await sequenceAttestations(services);
    const [stage] = await db.sql<{ stage_key: string }[]>`
      select stage_key from verification_stage_results where verification_run_id = ${run.verification_run_id}`;
    await redactStageLog(services, null, {
      verification_run_id: run.verification_run_id,
      stage_key: stage!.stage_key,
      reason: "personal_data",
    });
    const rerun = await rerunVerification(db.sql, viewerOf(solver), run.submission_id);
    await executeVerificationRun(services, rerun.verification_run_id);
    await sequenceAttestations(services);
    const first = (await get(`/api/verifications/${run.verification_run_id}/attestations`, solver)).body;
    expect(first.attestations.map((a: any) => a.reason)).toEqual(["finished", "log_redacted"]);
    const redacted = JSON.parse(
      Buffer.from(first.attestations[1].envelope.payload, "base64").toString(),
    ) as RunStatement;
    expect(redacted.predicate.stages[0]!.log).toMatchObject({ redacted: true });
    const second = (await get(`/api/verifications/${rerun.verification_run_id}/attestations`, solver)).body;
    expect(second.attestations).toHaveLength(1);
    expect(second.attestations[0].supersedes_log_index).toBe(first.attestations[1].log_index);
  });

  it("keeps every checkpoint consistent with the earlier ones, and a rotated key keeps verifying what it signed", async () => {
    const early = (await get("/api/transparency-log")).body.checkpoint;
    const oldKeys = await trustedKeys();
    await rotateSigningKey(db.sql, services.clock());
    await finishedRun("v 1 2 -3 0\n");
    await sequenceAttestations(services);
    const keys = await trustedKeys();
    expect(keys.keys).toHaveLength(2);
    expect(keys.keys[1]).toMatchObject({ key_id: oldKeys.keys[0].key_id, valid_until: expect.any(String) });
    expect(keys.keys[0].valid_until).toBeNull();
    const late = await get(`/api/transparency-log?from_size=${early.tree_size}`);
    const opened = openCheckpoint(late.body.checkpoint.note, keys.noteKeys);
    expect(opened).toMatchObject({ ok: true });
    // The old checkpoint still verifies with the (now retired) key it was signed with.
    expect(openCheckpoint(early.note, keys.noteKeys)).toMatchObject({ ok: true });
    const proof = late.body.consistency_proof.hashes.map((h: string) => Buffer.from(h, "base64"));
    expect(
      verifyConsistency(
        early.tree_size,
        late.body.checkpoint.tree_size,
        Buffer.from(early.root_hash, "base64"),
        Buffer.from(late.body.checkpoint.root_hash, "base64"),
        proof,
      ),
    ).toBeNull();
    const keyIds = keys.envelopeKeys.map((key: { publicKey: Buffer }) => keyIdOf(key.publicKey));
    expect(keyIds).toEqual(keys.keys.map((key: any) => key.key_id));
  });

  it("answers proofs for sizes never published, and indexes outside the tree, with invalid_input naming the field", async () => {
    const bad = await get("/api/transparency-log?tree_size=999999");
    expect(bad.status).toBe(404);
    const outside = await get("/api/transparency-log?log_index=999999");
    expect(outside.status).toBe(404);
    const negative = await get("/api/transparency-log?from_size=-1");
    expect(negative.status).toBe(400);
    expect(JSON.stringify(negative.body)).toContain("from_size");
  });
});
