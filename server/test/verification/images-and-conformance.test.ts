import { beforeAll, describe, expect, it } from "vitest";
import { attemptSummary } from "../../src/attempts/attempt-summary.ts";
import { runImplementationConformance } from "../../src/conformance/run-implementation-conformance.ts";
import { ServiceError } from "../../src/core/errors/service-error.ts";
import type { Services } from "../../src/core/services/services.ts";
import { getSandboxImageStatus } from "../../src/sandbox-images/get-sandbox-image-status.ts";
import { provisionImage } from "../../src/sandbox-images/provision-image.ts";
import { readSubmissions } from "../../src/submissions/read-submissions.ts";
import type { Principal } from "../../src/users/principal.ts";
import { executeVerificationRun } from "../../src/verification/execute-verification-run.ts";
import { getVerification } from "../../src/verification/get-verification.ts";
import { localSandboxRunner } from "../../src/verification/local-sandbox-runner.ts";
import { rerunVerification } from "../../src/verification/rerun-verification.ts";
import { revokeVerification } from "../../src/verification/revoke-verification.ts";
import {
  type Files,
  fixturePackage,
  newAuthor,
  newUser,
  uploadAndValidate,
} from "../authoring/support/authoring-harness.ts";
import { type RunningApp, startApp } from "../edges/mcp/support/start-app.ts";
import { describeWithDatabase, useTestDatabase } from "../support/test-database.ts";
import { testServices } from "../support/test-services.ts";
import { passConformance, publishProblem, seedSubmission } from "./support/verification-harness.ts";

const IMAGE = `registry.invalid/svc/checker@sha256:${"ab".repeat(32)}`;

function withContract(name: string, slug: string, edit: (contract: Record<string, any>) => void): Files {
  const files = { ...fixturePackage(name) };
  const problem = JSON.parse(Buffer.from(files["problem.json"]!).toString());
  problem.slug = slug;
  files["problem.json"] = JSON.stringify(problem);
  const contract = JSON.parse(Buffer.from(files["verifier-contract.json"]!).toString());
  edit(contract);
  files["verifier-contract.json"] = JSON.stringify(contract);
  return files;
}

const viewerOf = (p: Principal) => ({ userId: p.user.id, isAdministrator: p.user.is_admin });

describeWithDatabase("conformance, sandbox images and run administration", () => {
  const db = useTestDatabase();
  let services: Services;
  let author: Principal;
  let solver: Principal;

  beforeAll(async () => {
    // Builtins only: these tests are about the service's rules, not the engines.
    services = testServices(db.sql, { sandbox: localSandboxRunner({ backends: {} }) });
    author = await newAuthor(db.sql);
    solver = await newUser(db.sql);
  });

  describe("conformance", () => {
    it("validation lists every fixture's expected and actual result", async () => {
      const validation = await uploadAndValidate(services, author, fixturePackage("valid-builtin-sat"));
      expect(validation.conformance).toEqual([
        {
          stage_key: "sat_check",
          image_ref: "svc-builtin/sat-assignment-check:1",
          fixture: "satisfying",
          expected: "verified",
          actual: "verified",
          passed: true,
          implementation: expect.stringMatching(/^sha256:/),
          program: null,
          detail: expect.any(String),
          log_tail: "",
        },
        {
          stage_key: "sat_check",
          image_ref: "svc-builtin/sat-assignment-check:1",
          fixture: "falsifying",
          expected: "refuted",
          actual: "refuted",
          passed: true,
          implementation: expect.stringMatching(/^sha256:/),
          program: null,
          detail: expect.any(String),
          log_tail: "",
        },
      ]);
    });

    it("publication's run records passed, and a fixture expecting the wrong result records failed with the failure", async () => {
      const good = await publishProblem(services, author, "valid-builtin-sat");
      expect(await runImplementationConformance(services, good.implementation_ids[0]!)).toEqual({
        kind: "checked",
        status: "passed",
      });
      expect(await runImplementationConformance(services, good.implementation_ids[0]!)).toEqual({
        kind: "skipped",
      });

      const wrong = await publishProblem(
        services,
        author,
        withContract("valid-builtin-sat", "sat-wrong-fixture", (contract) => {
          contract.conformance_fixtures[1].expected_result = "verified";
        }),
      );
      expect(await runImplementationConformance(services, wrong.implementation_ids[0]!)).toEqual({
        kind: "checked",
        status: "failed",
      });
      const [row] =
        await db.sql`select conformance from verifier_implementations where id = ${wrong.implementation_ids[0]!}`;
      expect(row!.conformance).toMatchObject({
        status: "failed",
        fixtures_total: 2,
        fixtures_passed: 1,
        failures: [{ fixture_key: "falsifying", expected_result: "verified", actual_result: "refuted" }],
      });
      expect(row!.conformance.checked_at).not.toBeNull();

      // A run on a stage whose only implementation failed conformance cannot execute it.
      const { verification_run_id } = await seedSubmission(services, solver, wrong, [
        { role: "assignment", filename: "a.txt", media_type: "text/plain", content: "v 1 2 -3 0" },
      ]);
      await executeVerificationRun(services, verification_run_id);
      const [run] = await db.sql`select result from verification_runs where id = ${verification_run_id}`;
      expect(run!.result).toBe("inconclusive");
    });

    it("a script checker stays pending where no sandbox can run it, and its runs finish inconclusive", async () => {
      const problem = await publishProblem(services, author, "valid-script");
      expect(await runImplementationConformance(services, problem.implementation_ids[0]!)).toMatchObject({
        kind: "cannot_run",
      });
      const status = await getSandboxImageStatus(services, viewerOf(author), "svc-runtime/python:1");
      expect(status).toMatchObject({
        state: "unbound",
        implementations: [{ conformance: "pending", stage_key: "check_answer" }],
      });
      const { verification_run_id } = await seedSubmission(services, solver, problem, [
        { role: "answer", filename: "answer.txt", media_type: "text/plain", content: "1234" },
      ]);
      expect(await executeVerificationRun(services, verification_run_id)).toEqual({
        kind: "finished",
        result: "inconclusive",
      });
      const run = await getVerification(
        db.sql,
        viewerOf(solver),
        verification_run_id,
        "http://x",
        new Date(),
      );
      expect(run.stage_results).toEqual([]);
      expect(run.evidence_md).toMatch(/unbound/);
    });
  });

  describe("sandbox images", () => {
    it("builtins are available; an unknown image is not_found", async () => {
      expect(
        await getSandboxImageStatus(services, viewerOf(author), "svc-builtin/json-schema-check:1"),
      ).toMatchObject({
        state: "available",
        runtime_digest: null,
      });
      await expect(
        getSandboxImageStatus(services, viewerOf(author), `sha256:${"0".repeat(64)}`),
      ).rejects.toMatchObject({
        code: "not_found",
      });
    });

    it("a custom image is registered at validation, fails provisioning without a registry, and its runs end error", async () => {
      const verifier = await newUser(db.sql, { capabilities: ["author", "custom_verifier"] });
      const files = withContract("valid-builtin-sat", "sat-custom-image", (contract) => {
        contract.stages[0].implementation = IMAGE;
      });
      const validation = await uploadAndValidate(services, verifier, files);
      expect(validation.images).toEqual([
        { image_ref: IMAGE, image_digest: `sha256:${"ab".repeat(32)}`, state: "registered" },
      ]);
      const problem = await publishProblem(services, verifier, files);
      const registered = await getSandboxImageStatus(services, viewerOf(verifier), IMAGE);
      expect(registered).toMatchObject({
        state: "registered",
        implementations: [{ conformance: "pending" }],
      });

      await provisionImage(services, IMAGE);
      const failed = await getSandboxImageStatus(services, viewerOf(verifier), `sha256:${"ab".repeat(32)}`);
      expect(failed.state).toBe("provisioning_failed");
      expect(failed.state_reason).toMatch(/Docker|pull/);

      const { verification_run_id } = await seedSubmission(services, solver, problem, [
        { role: "assignment", filename: "a.txt", media_type: "text/plain", content: "v 1 2 -3 0" },
      ]);
      expect(await executeVerificationRun(services, verification_run_id)).toEqual({
        kind: "finished",
        result: "error",
      });

      // Naming the image again registers it again for another try.
      await uploadAndValidate(services, verifier, files);
      expect((await getSandboxImageStatus(services, viewerOf(verifier), IMAGE)).state).toBe("registered");
    });
  });

  describe("runtime binding over HTTP", () => {
    let app: RunningApp;
    beforeAll(async () => {
      app = await startApp(services);
      return () => app.close();
    });
    const post = (token: string, body: unknown) =>
      fetch(`${app.url}/admin/sandbox-runtimes`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      });

    it("binds svc-runtime/python:1 once, for administrators only, naming the field it refuses", async () => {
      const { issueToken } = await import("../../src/users/issue-token.ts");
      const admin = await newUser(db.sql, { admin: true });
      const adminToken = (await issueToken(db.sql, admin.user.handle, ["read", "contribute"])).token;
      const userToken = (await issueToken(db.sql, solver.user.handle, ["read", "contribute"])).token;

      expect(
        (
          await post(userToken, {
            image_ref: "svc-runtime/python:1",
            backend: "bwrap",
            local_image: "/usr/bin/python3",
          })
        ).status,
      ).toBe(403);
      const unknown = await post(adminToken, {
        image_ref: "svc-runtime/ruby:1",
        backend: "bwrap",
        local_image: "/usr/bin/ruby",
      });
      expect(unknown.status).toBe(400);
      expect(await unknown.json()).toMatchObject({ error: { code: "invalid_input", field: "image_ref" } });
      const relative = await post(adminToken, {
        image_ref: "svc-runtime/python:1",
        backend: "bwrap",
        local_image: "python3",
      });
      expect(await relative.json()).toMatchObject({ error: { field: "local_image" } });

      const bound = await post(adminToken, {
        image_ref: "svc-runtime/python:1",
        backend: "bwrap",
        local_image: "/usr/bin/python3",
      });
      expect(bound.status).toBe(201);
      expect(await bound.json()).toMatchObject({
        runtime: { image_ref: "svc-runtime/python:1", backend: "bwrap", local_image: "/usr/bin/python3" },
      });
      const again = await post(adminToken, {
        image_ref: "svc-runtime/python:1",
        backend: "bwrap",
        local_image: "/usr/bin/python3",
      });
      expect(again.status).toBe(409);
      const list = await fetch(`${app.url}/admin/sandbox-runtimes`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      expect(((await list.json()) as { runtimes: unknown[] }).runtimes).toHaveLength(1);
    });
  });

  describe("reruns and revocation", () => {
    it("a rerun is a new run on the same inputs; only administrators revoke, once, finished runs", async () => {
      const problem = await publishProblem(
        services,
        author,
        withContract("valid-builtin-sat", "sat-rerun", (contract) => {
          contract.title = "Satisfying assignment, rerun";
        }),
      );
      await passConformance(db.sql, problem.verifier_contract_id);
      const seeded = await seedSubmission(services, solver, problem, [
        { role: "assignment", filename: "a.txt", media_type: "text/plain", content: "v 1 2 -3 0" },
      ]);
      const admin = await newUser(db.sql, { admin: true });
      const reason = {
        verification_run_id: seeded.verification_run_id,
        reason_md: "The checker image was swapped.",
      };
      await expect(revokeVerification(services, viewerOf(admin), reason)).rejects.toMatchObject({
        code: "conflict",
      });
      await executeVerificationRun(services, seeded.verification_run_id);

      const rerun = await rerunVerification(db.sql, viewerOf(solver), seeded.submission_id);
      expect(rerun.verification_run_id).not.toBe(seeded.verification_run_id);
      const run = await getVerification(
        db.sql,
        viewerOf(solver),
        rerun.verification_run_id,
        "http://x",
        new Date(),
      );
      expect(run).toMatchObject({ trigger: "rerun", status: "queued", submission_id: seeded.submission_id });
      const stranger = await newUser(db.sql);
      await expect(rerunVerification(db.sql, viewerOf(stranger), seeded.submission_id)).rejects.toMatchObject(
        { code: "not_found" },
      );

      await expect(revokeVerification(services, viewerOf(solver), reason)).rejects.toMatchObject({
        code: "forbidden",
      });
      const revoked = await revokeVerification(services, viewerOf(admin), reason);
      expect(revoked.revocation).toMatchObject({
        revoked_by_user_id: admin.user.id,
        reason_md: reason.reason_md,
      });
      await expect(revokeVerification(services, viewerOf(admin), reason)).rejects.toBeInstanceOf(
        ServiceError,
      );
      const after = await getVerification(
        db.sql,
        viewerOf(solver),
        seeded.verification_run_id,
        "http://x",
        new Date(),
      );
      expect(after).toMatchObject({ result: "verified", revocation: { reason_md: reason.reason_md } });
    });

    it("a revoked run stops contributing: latest_verification and attempt_summary skip it (spec 2.4)", async () => {
      const problem = await publishProblem(
        services,
        author,
        withContract("valid-builtin-sat", "sat-revoked", (contract) => {
          contract.title = "Satisfying assignment, revoked";
        }),
      );
      await passConformance(db.sql, problem.verifier_contract_id);
      const seeded = await seedSubmission(services, solver, problem, [
        { role: "assignment", filename: "a.txt", media_type: "text/plain", content: "v 1 2 -3 0" },
      ]);
      await executeVerificationRun(services, seeded.verification_run_id);
      const reader = { viewer: viewerOf(solver), now: new Date() };
      const before = await readSubmissions(db.sql, { id: seeded.submission_id }, reader);
      expect(before[0]?.latest_verification).toMatchObject({
        id: seeded.verification_run_id,
        result: "verified",
      });
      expect((await attemptSummary(db.sql, reader, problem.problem_id)).latest_verification).toMatchObject({
        verification_run_id: seeded.verification_run_id,
      });

      const admin = await newUser(db.sql, { admin: true });
      await revokeVerification(services, viewerOf(admin), {
        verification_run_id: seeded.verification_run_id,
        reason_md: "The checker was broken.",
      });
      const [after] = await readSubmissions(db.sql, { id: seeded.submission_id }, reader);
      expect(after?.latest_verification).toBeNull();
      expect(after?.verification_run_ids).toEqual([seeded.verification_run_id]);
      expect((await attemptSummary(db.sql, reader, problem.problem_id)).latest_verification).toBeNull();
    });
  });
});
