import { editJson, type Files, fixturePackage } from "../authoring/support/authoring-harness.ts";

/**
 * The hostile suite's packages, each named `evil/<what it does>`: the valid-script package with
 * its checker or limits changed to attack the host.
 */

/** A checker that holds 900 MiB while it decides (memory_mb 1200 lets it). */
export function holdsMemory(slug: string): Files {
  const base = fixturePackage("valid-script");
  const checker = Buffer.from(base["checker.py"]!).toString("utf8");
  const holding = checker.replace(
    "def main() -> None:\n",
    'def main() -> None:\n    held = bytearray(900 * 2**20)\n    held[:: 4096] = b"x" * len(held[:: 4096])\n',
  );
  const files = editJson({ ...base, "checker.py": holding }, "verifier-contract.json", (contract) => {
    const stages = contract.stages as { limits: Record<string, number> }[];
    stages[0]!.limits = { timeout_seconds: 60, memory_mb: 1200 };
    contract.conformance_fixtures = (contract.conformance_fixtures as { key: string }[]).slice(0, 1);
  });
  return editJson(files, "problem.json", (problem) => {
    problem.slug = slug;
  });
}

/** A package asking for the most spec 2.2 allows: 16 vCPUs, 16 GiB, 64 GiB of disk, an hour. */
export function asksForTheMost(slug: string): Files {
  const files = editJson(fixturePackage("valid-script"), "verifier-contract.json", (contract) => {
    const stages = contract.stages as { limits: Record<string, number> }[];
    stages[0]!.limits = { vcpu: 16, memory_mb: 16384, disk_mb: 65536, timeout_seconds: 3600 };
  });
  return editJson(files, "problem.json", (problem) => {
    problem.slug = slug;
  });
}
