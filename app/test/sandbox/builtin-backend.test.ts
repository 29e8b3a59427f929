import { describe, expect, it } from "vitest";
import { runBuiltin } from "../../src/sandbox/builtin-backend.ts";
import { runChecker } from "../../src/sandbox/run-checker.ts";
import { builtinJob, input } from "./job-fixtures.ts";

const SAT = "svc-builtin/sat-assignment-check:1";
const JSON_CHECK = "svc-builtin/json-schema-check:1";
const CNF = "c a small instance\np cnf 3 2\n1 -2 0\n2 3 0\n";

function sat(instance: string, assignment: string) {
  return runBuiltin(
    builtinJob(SAT, [input("assignment", "a.txt", assignment)], [input("instance", "i.cnf", instance)]),
  );
}

function jsonCheck(schema: string | Uint8Array, document: string | Uint8Array) {
  return runBuiltin(
    builtinJob(
      JSON_CHECK,
      [input("document", "d.json", document)],
      [input("document_schema", "s.json", schema)],
    ),
  );
}

describe("svc-builtin/sat-assignment-check:1", () => {
  it("verifies an assignment that makes every clause true, recording no duration or exit code", () => {
    const outcome = sat(CNF, "1 2 -3 0\n");
    expect(outcome).toMatchObject({
      result: "verified",
      backend: "builtin",
      duration_ms: null,
      exit_code: null,
    });
    expect(outcome.evidence_hash).toBeNull();
  });

  it("accepts v-prefixed lines, no terminating 0, and several lines", () => {
    expect(sat(CNF, "v 1 2\nv -3 0\n").result).toBe("verified");
    expect(sat(CNF, "1\n2").result).toBe("verified");
  });

  it("refutes when a clause has no true literal, naming the clause", () => {
    const outcome = sat(CNF, "-1 -2 -3 0");
    expect(outcome.result).toBe("refuted");
    expect(outcome.summary).toContain("clause 2");
  });

  it("refutes when a variable is given both signs, even if every clause is then true", () => {
    const outcome = sat(CNF, "1 -1 2 0");
    expect(outcome.result).toBe("refuted");
    expect(outcome.summary).toContain("both signs");
  });

  it("treats unassigned variables as making no literal true", () => {
    expect(sat(CNF, "1 0").result).toBe("refuted");
    expect(sat(CNF, "").result).toBe("refuted");
    expect(sat("p cnf 0 0\n", "").result).toBe("verified");
  });

  it("ignores assignment variables the instance lacks", () => {
    expect(sat(CNF, "1 2 7 -9 0").result).toBe("verified");
  });

  it("is inconclusive when the instance does not parse", () => {
    for (const bad of [
      "1 2 0\n",
      "p cnf 2 1\n1 3 0\n",
      "p cnf 3 3\n1 0\n",
      "p cnf x 1\n1 0",
      "p cnf 3 1\n1 a 0",
    ]) {
      const outcome = sat(bad, "1 0");
      expect(outcome.result, bad).toBe("inconclusive");
      expect(outcome.reason, bad).toContain("instance");
    }
  });

  it("is inconclusive when the assignment does not parse", () => {
    for (const bad of ["1 x 0", "1 0 2", "s SATISFIABLE\nv 1 2 0", "1.5"]) {
      const outcome = sat(CNF, bad);
      expect(outcome.result, bad).toBe("inconclusive");
      expect(outcome.reason, bad).toContain("assignment");
    }
  });

  it("reads SATLIB files ending in a % line, comments and clauses spanning lines", () => {
    expect(sat("c x\np cnf 3 2\n1 -2\n0 2 3 0\n%\n0\n", "1 2 0").result).toBe("verified");
  });

  it("is inconclusive when the artifact or the reference is missing", () => {
    expect(runBuiltin(builtinJob(SAT, [], [input("instance", "i.cnf", CNF)])).result).toBe("inconclusive");
    expect(runBuiltin(builtinJob(SAT, [input("assignment", "a", "1")], [])).result).toBe("inconclusive");
  });

  it("is inconclusive on bytes that are not UTF-8", () => {
    expect(sat(CNF, new Uint8Array([0xff, 0xfe, 0x31]) as unknown as string).result).toBe("inconclusive");
  });
});

describe("svc-builtin/json-schema-check:1", () => {
  const schema = JSON.stringify({
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    required: ["n"],
    properties: { n: { type: "integer", minimum: 1 } },
  });

  it("verifies a document that satisfies the schema", () => {
    expect(jsonCheck(schema, '{"n": 3}').result).toBe("verified");
  });

  it("refutes a document that violates it, naming where", () => {
    const outcome = jsonCheck(schema, '{"n": 0}');
    expect(outcome.result).toBe("refuted");
    expect(outcome.summary).toContain("/n");
  });

  it("is inconclusive when the document or the schema is not JSON", () => {
    expect(jsonCheck(schema, "{n: 3}").result).toBe("inconclusive");
    expect(jsonCheck("{type: object}", '{"n": 3}').result).toBe("inconclusive");
    expect(jsonCheck(schema, new Uint8Array([0x7b, 0xff, 0x7d])).result).toBe("inconclusive");
  });

  it("is inconclusive when the schema does not compile", () => {
    expect(jsonCheck('{"type": "no-such-type"}', "1").result).toBe("inconclusive");
    expect(jsonCheck('{"$ref": "#/nowhere"}', "1").result).toBe("inconclusive");
  });

  it("uses draft 2020-12 semantics (prefixItems) and accepts boolean schemas", () => {
    const tuple = JSON.stringify({ prefixItems: [{ type: "string" }], items: false });
    expect(jsonCheck(tuple, '["a"]').result).toBe("verified");
    expect(jsonCheck(tuple, '["a", 1]').result).toBe("refuted");
    expect(jsonCheck("true", "null").result).toBe("verified");
    expect(jsonCheck("false", "null").result).toBe("refuted");
  });

  it("accepts a byte order mark before the JSON", () => {
    expect(jsonCheck(schema, '\uFEFF{"n": 3}').result).toBe("verified");
  });
});

describe("runChecker", () => {
  it("runs builtins in process without any sandbox bound", async () => {
    const job = builtinJob(SAT, [input("assignment", "a.txt", "1 2 0")], [input("instance", "i.cnf", CNF)]);
    const outcome = await runChecker(job, { binding: null, backends: {} });
    expect(outcome).toMatchObject({ result: "verified", backend: "builtin" });
  });

  it("reports a script runtime as inconclusive when no sandbox is bound", async () => {
    const job = builtinJob("svc-runtime/python:1", [], []);
    const outcome = await runChecker(job, { binding: null, backends: {} });
    expect(outcome).toMatchObject({ result: "inconclusive", backend: "none" });
    expect(outcome.reason).toContain("no sandbox");
  });

  it("reports a backend that throws as error, the service's own failure", async () => {
    const job = builtinJob("svc-runtime/python:1", [], []);
    const broken = { name: "docker" as const, run: async () => Promise.reject(new Error("engine gone")) };
    const outcome = await runChecker(job, {
      binding: { backend: "docker", local_image: "x" },
      backends: { docker: broken },
    });
    expect(outcome).toMatchObject({ result: "error", backend: "docker" });
    expect(outcome.reason).toContain("engine gone");
  });
});
