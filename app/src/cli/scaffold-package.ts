import { sha256 } from "../hash/sha256.ts";

/**
 * The files `svc init` writes: a problem with a statement, a contract whose one sandbox stage runs
 * `./checker.py`, and one verified and one refuted fixture with their hashes filled in, so the
 * package lints clean as scaffolded. With `campaign`, the mechanism sits at the campaign root and
 * the problem under problems/<slug>/ inherits it.
 */
export function scaffoldPackage(options: { slug: string; campaign: boolean }): Record<string, string> {
  const { slug } = options;
  const good = "1234\n";
  const bad = "1235\n";
  const fixtureInput = (filename: string, text: string) => ({
    role: "answer",
    filename,
    content_hash: sha256(text),
    size_bytes: Buffer.byteLength(text),
  });
  const contract = {
    title: "Integer square root",
    statement_md: "The answer is the integer whose square is 1522756.",
    reference_inputs: [],
    stages: [
      {
        key: "check_answer",
        kind: "sandbox",
        title: "Check the answer",
        description_md: "Squares the submitted integer and compares it with 1522756.",
        evidence_schema: null,
        review_protocol_id: null,
        rule_owner: "contract",
        acceptance: "The submitted integer squared equals 1522756.",
        external_system: null,
        implementation: "./checker.py",
        limits: { timeout_seconds: 10, memory_mb: 128 },
      },
    ],
    submission_requirements: {
      required_artifacts: [
        { role: "answer", description: "The integer, as text", media_types: ["text/plain"], max_bytes: 1024 },
      ],
      accepts_text_only: false,
      answer_format_md: "One integer in a text file.",
    },
    result_kind: "pass_fail",
    score: null,
    conformance_fixtures: [
      {
        key: "right_answer",
        stage_key: "check_answer",
        description: "The right answer is verified.",
        inputs: { reference: {}, artifacts: [fixtureInput("right-answer.txt", good)] },
        expected_result: "verified",
      },
      {
        key: "wrong_answer",
        stage_key: "check_answer",
        description: "A wrong answer is refuted.",
        inputs: { reference: {}, artifacts: [fixtureInput("wrong-answer.txt", bad)] },
        expected_result: "refuted",
      },
    ],
  };
  const problem = {
    slug,
    title: "Integer square root",
    summary: "Find the integer whose square is 1522756.",
    structure: "SOLVE",
    priority_weight: 0.5,
  };
  const statement = `# Integer square root

Find the positive integer whose square is 1522756.

Submit it as a text file with the artifact role \`answer\`.
`;
  const mechanism = {
    "verifier-contract.json": json(contract),
    "checker.py": CHECKER,
    "fixtures/right-answer.txt": good,
    "fixtures/wrong-answer.txt": bad,
  };
  if (!options.campaign) {
    return { "problem.json": json(problem), "statement.md": statement, ...mechanism };
  }
  const campaign = {
    slug: `${slug}-campaign`,
    title: "Example campaign",
    summary: "A campaign scaffolded by svc init.",
    description_md: "",
    status: "draft",
  };
  return {
    "campaign.json": json(campaign),
    ...mechanism,
    [`problems/${slug}/problem.json`]: json(problem),
    [`problems/${slug}/statement.md`]: statement,
  };
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

const CHECKER = `"""Checks the answer: the integer whose square is 1522756.

The sandbox mounts the submission under /input (described by /input/manifest.json) and reads
the verdict from /output/result.json: verified, refuted or inconclusive.
"""
import json
import pathlib

TARGET = 1522756


def write(result: str, summary: str) -> None:
    pathlib.Path("/output/result.json").write_text(json.dumps({"result": result, "summary": summary}))


def main() -> None:
    manifest = json.loads(pathlib.Path("/input/manifest.json").read_text())
    answer = next(a for a in manifest["artifacts"] if a["role"] == "answer")
    text = pathlib.Path(answer["path"]).read_text().strip()
    try:
        value = int(text)
    except ValueError:
        write("refuted", f"the answer {text[:40]!r} is not an integer")
        return
    if value * value == TARGET:
        write("verified", f"{value} squared is {TARGET}")
    else:
        write("refuted", f"{value} squared is {value * value}, not {TARGET}")


if __name__ == "__main__":
    main()
`;
