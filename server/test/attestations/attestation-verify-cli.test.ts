import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MemoryMerkleTree, signCheckpoint } from "@svc/app";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { svcWith } from "../../../app/test/cli/support-run.ts";
import { activeSigningKey } from "../../src/attestations/attestation-keys.ts";
import { sequenceAttestations } from "../../src/attestations/sequence-attestations.ts";
import type { Services } from "../../src/core/services/services.ts";
import { issueToken } from "../../src/users/issue-token.ts";
import type { Principal } from "../../src/users/principal.ts";
import { executeVerificationRun } from "../../src/verification/execute-verification-run.ts";
import { newAuthor, newUser } from "../authoring/support/authoring-harness.ts";
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
 * `svc attestation verify` against a real service (issue 34 item 5 and its acceptance): every check
 * holds for a genuine run; one byte changed anywhere (artifact, envelope, inclusion proof,
 * checkpoint) fails and says what; a log rewritten behind the client's back is detected against
 * the checkpoint this machine saw before.
 */
describeWithDatabase("svc attestation verify", () => {
  const db = useTestDatabase();
  let services: Services;
  let app: RunningApp;
  let solver: Principal;
  let sat: PublishedProblem;
  let env: Record<string, string>;
  let dir: string;

  beforeAll(async () => {
    services = testServices(db.sql);
    app = await startApp(services);
    const author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
    sat = await publishProblem(services, author, "valid-builtin-sat");
    await passConformance(db.sql, sat.verifier_contract_id);
    dir = await mkdtemp(join(tmpdir(), "svc-attest-"));
    const { token } = await issueToken(db.sql, solver.user.handle, ["read"]);
    env = { SVC_BASE_URL: app.url, SVC_TOKEN: token, XDG_CONFIG_HOME: join(dir, "config"), HOME: dir };
  });
  afterAll(async () => {
    await app?.close();
  });

  /** The `svc` command line in process, with this test's service and config folder. */
  const svc = (...argv: string[]) => svcWith({ env }, argv);

  async function attestedRun(text: string) {
    const seeded = await seedSubmission(services, solver, sat, [
      { role: "assignment", filename: "a.txt", media_type: "text/plain", content: text },
    ]);
    await executeVerificationRun(services, seeded.verification_run_id);
    await sequenceAttestations(services);
    const path = join(dir, `${seeded.verification_run_id}.txt`);
    await writeFile(path, text);
    return { runId: seeded.verification_run_id, artifact: path };
  }

  async function savedBundle(runId: string): Promise<{ path: string; bundle: any }> {
    const response = await fetch(`${app.url}/api/verifications/${runId}/attestations`, {
      headers: { authorization: `Bearer ${env.SVC_TOKEN}` },
    });
    const bundle = await response.json();
    const path = join(dir, `${runId}.json`);
    await writeFile(path, JSON.stringify(bundle));
    return { path, bundle };
  }

  it("passes every check for a genuine run, by run id and from a saved file, and remembers the checkpoint", async () => {
    const { runId, artifact } = await attestedRun("v 1 2 -3 0\n");
    const byId = await svc("attestation", "verify", runId, "--artifact", artifact);
    expect(byId.stdout).toContain("OK: every check holds");
    expect(byId.stdout).toMatch(/ok {3}attestation \d+: signature: valid/);
    expect(byId.stdout).toMatch(/ok {3}subject .*a\.txt|ok {3}subject .*\.txt: matches assignment\/art_/);
    expect(byId.code).toBe(0);
    const seen = JSON.parse(await readFile(join(dir, "config", "svc", "transparency-log.json"), "utf8"));
    expect(Object.values(seen)[0]).toMatchObject({ tree_size: expect.any(Number) });

    const { path } = await savedBundle(runId);
    const fromFile = await svc("attestation", "verify", path, "--json");
    expect(JSON.parse(fromFile.stdout)).toMatchObject({ ok: true });
    expect(fromFile.code).toBe(0);
  });

  describe("one byte changed anywhere fails and says what", () => {
    let runId: string;
    let artifact: string;
    beforeAll(async () => {
      ({ runId, artifact } = await attestedRun("v 1 2 -3 0\n"));
    });

    it("an artifact", async () => {
      await writeFile(artifact, "v 1 2 -3 0\n ");
      const result = await svc("attestation", "verify", runId, "--artifact", artifact);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/FAILED: subject .*is not a subject of the attestation/);
    });

    it("the envelope's payload", async () => {
      const { path, bundle } = await savedBundle(runId);
      const payload = Buffer.from(bundle.attestations[0].envelope.payload, "base64");
      payload[payload.indexOf("verified")] ^= 1;
      bundle.attestations[0].envelope.payload = payload.toString("base64");
      await writeFile(path, JSON.stringify(bundle));
      const result = await svc("attestation", "verify", path);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(
        /FAILED: attestation \d+: signature: the envelope's signature .* does not verify/,
      );
    });

    it("the log entry (an inclusion-proof hash)", async () => {
      const { path, bundle } = await savedBundle(runId);
      const proof = bundle.attestations[0].inclusion_proof;
      const hash = Buffer.from(proof.hashes[0], "base64");
      hash[0] ^= 1;
      proof.hashes[0] = hash.toString("base64");
      await writeFile(path, JSON.stringify(bundle));
      const result = await svc("attestation", "verify", path);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/FAILED: attestation \d+: in the log: the inclusion proof does not lead/);
    });

    it("the checkpoint", async () => {
      const { path, bundle } = await savedBundle(runId);
      bundle.checkpoint.note = bundle.checkpoint.note.replace(
        /\n(\d+)\n/,
        (_: string, n: string) => `\n${Number(n) + 1}\n`,
      );
      await writeFile(path, JSON.stringify(bundle));
      const result = await svc("attestation", "verify", path);
      expect(result.code).toBe(1);
      expect(result.stdout).toMatch(/FAILED: checkpoint: the checkpoint's signature by .* does not verify/);
    });
  });

  it("detects a log rewritten behind the client's back: the new checkpoint does not extend the one it saw", async () => {
    const first = await attestedRun("v 1 2 -3 0\n");
    expect((await svc("attestation", "verify", first.runId)).code).toBe(0);
    const later = await attestedRun("v 1 2 -3 0\n");

    // The service turns hostile: it changes an early leaf, rebuilds the tree and signs the result.
    const leaves = await db.sql<{ hash: Buffer }[]>`
      select hash from transparency_log_nodes where level = 0 order by idx`;
    const tree = new MemoryMerkleTree();
    leaves.forEach((leaf, i) => {
      const hash = Buffer.from(leaf.hash);
      if (i === 0) hash[0]! ^= 1;
      tree.append(hash);
    });
    await db.sql.begin(async (tx) => {
      await tx`delete from transparency_log_nodes`;
      for (let i = 0; i < tree.size; i++) {
        for (const node of [{ level: 0, index: i }]) {
          await tx`insert into transparency_log_nodes values (${node.level}, ${node.index}, ${tree.node(node)})`;
        }
      }
      for (let level = 1; 2 ** level <= tree.size; level++) {
        for (let index = 0; (index + 1) * 2 ** level <= tree.size; index++) {
          await tx`insert into transparency_log_nodes values (${level}, ${index}, ${tree.node({ level, index })})`;
        }
      }
      const key = await activeSigningKey(tx);
      const [{ origin }] = await tx<{ origin: string }[]>`select origin from transparency_log`;
      const note = signCheckpoint(
        { origin, treeSize: tree.size, rootHash: tree.root() },
        origin,
        key.privateKey,
        key.publicKey,
      );
      await tx`update transparency_log_checkpoints set note = ${note}, root_hash = ${tree.root()} where tree_size = ${tree.size}`;
    });

    const result = await svc("attestation", "verify", later.runId);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(
      /FAIL consistent with the checkpoint this machine saw before: the log's history does not contain the tree of \d+/,
    );
  });
});
