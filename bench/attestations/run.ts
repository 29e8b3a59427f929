/**
 * bench/attestations: what verdicts anyone can check cost (issue 34 item 7).
 *
 * Prints, in one run on one machine:
 * - signing one run's attestation (the Statement's canonical JSON, the DSSE signature, the
 *   envelope's canonical JSON and its leaf hash), CPU per run, against a bare Ed25519 signature
 *   of 32 bytes (goal: under 0.2 ms);
 * - log appends per second with their proofs: the sequencer integrating queued finished runs
 *   (Statements built from the records, signed, appended, every completed subtree stored, one
 *   signed checkpoint per batch), against plain inserts of the same envelopes into a table
 *   (goal: over 2,000/s);
 * - inclusion proof p95 at 1,000,000 entries (nodes seeded in bulk), against a primary-key read
 *   of one node (goal: under 5 ms).
 * Run with `npm run bench:attestations`; DATABASE_URL, else an embedded PostgreSQL.
 */
import { generateKeyPairSync, sign } from "node:crypto";
import { join } from "node:path";
import { canonicalJson, IN_TOTO_PAYLOAD_TYPE, leafHash, MemoryMerkleTree, signEnvelope } from "@svc/app";
import { pino } from "pino";
import { activeSigningKey } from "../../server/src/attestations/attestation-keys.ts";
import { insertLogNodes, sequenceAttestations } from "../../server/src/attestations/sequence-attestations.ts";
import { inclusionProof } from "../../server/src/attestations/transparency-log.ts";
import { openLocalBlobStore } from "../../server/src/core/blobs/open-local-blob-store.ts";
import { sandboxBudgetFromEnv } from "../../server/src/core/services/sandbox-budget.ts";
import type { Services } from "../../server/src/core/services/services.ts";
import { unavailableHostedReviewers } from "../../server/src/reviews/agents/unavailable-hosted-reviewers.ts";
import { executeVerificationRun } from "../../server/src/verification/execute-verification-run.ts";
import { localSandboxRunner } from "../../server/src/verification/local-sandbox-runner.ts";
import { newAuthor, newUser } from "../../server/test/authoring/support/authoring-harness.ts";
import {
  passConformance,
  publishProblem,
  seedSubmission,
} from "../../server/test/verification/support/verification-harness.ts";
import { benchDatabase } from "../support/bench-database.ts";
import { percentile, printSummary } from "../support/measure.ts";

const SIGNS = Number(process.env.BENCH_SIGNS ?? 20_000);
const APPENDS = Number(process.env.BENCH_APPENDS ?? 10_000);
const LOG_SIZE = Number(process.env.BENCH_LOG_SIZE ?? 1_000_000);
const PROOFS = Number(process.env.BENCH_PROOFS ?? 1_000);

const db = await benchDatabase();
console.log(`# bench/attestations on ${db.description}`);
const services: Services = {
  sql: db.sql,
  blobs: openLocalBlobStore(join(db.dataDir, "blobs")),
  signingSecret: "bench-signing-secret-of-32-bytes",
  baseUrl: undefined,
  clock: () => new Date(),
  log: pino({ level: "silent" }),
  sandbox: localSandboxRunner({ backends: {} }),
  sandboxBudget: sandboxBudgetFromEnv({}),
  hostedReviewers: unavailableHostedReviewers,
};

try {
  // One real finished run: the template every cloned run and every signed Statement follows.
  const author = await newAuthor(db.sql);
  const solver = await newUser(db.sql);
  const problem = await publishProblem(services, author, "valid-builtin-sat");
  await passConformance(db.sql, problem.verifier_contract_id);
  const seeded = await seedSubmission(services, solver, problem, [
    { role: "assignment", filename: "a.txt", media_type: "text/plain", content: "v 1 2 -3 0\n" },
  ]);
  await executeVerificationRun(services, seeded.verification_run_id);
  await sequenceAttestations(services);
  const [first] = await db.sql<
    { envelope: string }[]
  >`select envelope from attestations order by log_index limit 1`;
  const statement = JSON.parse(Buffer.from(JSON.parse(first!.envelope).payload, "base64").toString());

  // 1. Signing, CPU per run.
  const key = await activeSigningKey(db.sql);
  const cpuPer = (n: number, fn: (i: number) => void) => {
    for (let i = 0; i < 500; i++) fn(i);
    const start = process.cpuUsage();
    for (let i = 0; i < n; i++) fn(i);
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000 / n;
  };
  const signing = cpuPer(SIGNS, (i) => {
    statement.predicate.issued_at = new Date(1_800_000_000_000 + i).toISOString();
    const envelope = signEnvelope(IN_TOTO_PAYLOAD_TYPE, Buffer.from(canonicalJson(statement)), key);
    leafHash(Buffer.from(canonicalJson(envelope)));
  });
  const { privateKey } = generateKeyPairSync("ed25519");
  const digest = Buffer.alloc(32, 7);
  const bare = cpuPer(SIGNS, () => sign(null, digest, privateKey));
  console.log(
    `signing one run's attestation: ${(signing * 1000).toFixed(1)} us CPU; bare Ed25519 sign: ${(bare * 1000).toFixed(1)} us`,
  );
  printSummary({
    name: "attestation signing CPU per run",
    figure: signing,
    baseline: bare,
    unit: "ms",
    baselineName: "bare Ed25519 sign",
  });

  // 2. Appends per second with proofs: clone the finished run APPENDS times (each queued by the trigger).
  const template = seeded.verification_run_id;
  await db.sql`
    insert into verification_runs (id, submission_id, problem_revision_id, verifier_contract_id, trigger, inputs,
      status, result, score, evidence_md, created_at, started_at, finished_at)
    select 'vrn_' || lpad(to_hex(g), 20, '0'), submission_id, problem_revision_id, verifier_contract_id, trigger, inputs,
      'finished', result, score, evidence_md, created_at, started_at, finished_at
    from verification_runs, generate_series(1, ${APPENDS}) g where id = ${template}`;
  await db.sql`
    insert into verification_stage_results (verification_run_id, position, stage_key, kind, status, result, score,
      evidence_md, mechanism, log, evidence_files, started_at, finished_at)
    select 'vrn_' || lpad(to_hex(g), 20, '0'), position, stage_key, kind, status, result, score,
      evidence_md, mechanism, log, evidence_files, started_at, finished_at
    from verification_stage_results, generate_series(1, ${APPENDS}) g where verification_run_id = ${template}`;
  const appendStart = performance.now();
  let appended = 0;
  for (;;) {
    const batch = await sequenceAttestations(services);
    appended += batch.appended;
    if (batch.appended === 0) break;
  }
  const appendSeconds = (performance.now() - appendStart) / 1000;
  const envelopes = await db.sql<
    { envelope: string }[]
  >`select envelope from attestations order by log_index`;
  await db.sql`create table bench_plain_appends (id bigint primary key, envelope text not null)`;
  const plainStart = performance.now();
  for (let i = 0; i < envelopes.length; i += 500) {
    const chunk = envelopes.slice(i, i + 500);
    await db.sql.begin(async (tx) => {
      await tx`
        insert into bench_plain_appends select * from unnest(${chunk.map((_, j) => i + j)}::bigint[], ${chunk.map((row) => row.envelope)}::text[])`;
    });
  }
  const plainSeconds = (performance.now() - plainStart) / 1000;
  console.log(
    `log appends: ${appended} in ${appendSeconds.toFixed(2)} s; plain inserts: ${envelopes.length} in ${plainSeconds.toFixed(2)} s`,
  );
  printSummary({
    name: "log appends/s with proofs",
    figure: appended / appendSeconds,
    baseline: envelopes.length / plainSeconds,
    unit: "appends/s",
    baselineName: "plain inserts",
  });

  // 3. Inclusion proofs at LOG_SIZE entries: a fresh tree seeded in bulk beside the real one.
  await db.sql`delete from transparency_log_nodes`;
  const tree = new MemoryMerkleTree();
  let nodes: Array<{ level: number; index: number; hash: Buffer }> = [];
  const flush = async () => {
    await insertLogNodes(db.sql, nodes);
    nodes = [];
  };
  const leaf = Buffer.alloc(8);
  for (let i = 0; i < LOG_SIZE; i++) {
    leaf.writeDoubleBE(i);
    nodes.push(...tree.append(leafHash(leaf)));
    if (nodes.length >= 50_000) await flush();
  }
  await flush();
  await db.sql`
    insert into transparency_log_checkpoints (tree_size, root_hash, note, key_id, signed_at)
    values (${LOG_SIZE}, ${tree.root()}, 'bench', ${key.keyId}, now()) on conflict (tree_size) do nothing`;
  await db.sql`analyze transparency_log_nodes`;
  const timings: number[] = [];
  const reads: number[] = [];
  for (let i = 0; i < PROOFS + 50; i++) {
    const index = Math.floor(Math.random() * LOG_SIZE);
    let start = performance.now();
    const proof = await inclusionProof(db.sql, index, LOG_SIZE);
    const took = performance.now() - start;
    start = performance.now();
    await db.sql`select hash from transparency_log_nodes where level = 0 and idx = ${index}`;
    const read = performance.now() - start;
    if (i >= 50) {
      timings.push(took);
      reads.push(read);
    }
    if (i === 0 && proof.hashes.length !== tree.inclusionProof(index).length)
      throw new Error("proof length differs");
  }
  timings.sort((a, b) => a - b);
  reads.sort((a, b) => a - b);
  console.log(
    `inclusion proof at ${LOG_SIZE}: p50 ${percentile(timings, 50).toFixed(2)} ms, p95 ${percentile(timings, 95).toFixed(2)} ms`,
  );
  printSummary({
    name: `inclusion proof p95 at ${LOG_SIZE / 1_000_000}M entries`,
    figure: percentile(timings, 95),
    baseline: percentile(reads, 95),
    unit: "ms",
    baselineName: "one node by primary key",
  });
} finally {
  await services.sandbox.close?.();
  await db.close();
}
