import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { packArchive } from "../../src/client/authoring-steps.ts";
import { measurePackage } from "../../src/client/measure-package.ts";
import {
  CLI_SHARD_LIMITS,
  type PlannedShard,
  planShards,
  type ShardInput,
  type ShardLimits,
} from "../../src/client/plan-shards.ts";
import { lintPackage } from "../../src/plan/lint-package.ts";
import { memoryTree } from "../../src/tree/memory-tree.ts";
import { campaignFiles } from "./support/campaign-files.ts";

const file = (path: string) =>
  fc.record({ path: fc.constant(path), size: fc.nat(5_000), zipped: fc.nat(2_000) }).map((f) => ({ ...f }));

/** A package: shared files and problems with unique slugs, each with one to four files. */
const packageInput: fc.Arbitrary<ShardInput> = fc
  .record({
    shared: fc.array(fc.nat(3), { minLength: 0, maxLength: 4 }),
    slugs: fc.uniqueArray(fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/), { maxLength: 40 }),
  })
  .chain(({ shared, slugs }) =>
    fc.record({
      shared: fc.tuple(...shared.map((_, i) => file(`shared-${i}.json`))),
      problems: fc.tuple(
        ...slugs.map((slug) =>
          fc.integer({ min: 1, max: 4 }).chain((n) =>
            fc.record({
              slug: fc.constant(slug),
              dir: fc.constant(`problems/${slug}`),
              files: fc.tuple(...Array.from({ length: n }, (_, i) => file(`problems/${slug}/f${i}`))),
            }),
          ),
        ),
      ),
    }),
  ) as fc.Arbitrary<ShardInput>;

const limits: fc.Arbitrary<ShardLimits> = fc.record({
  maxProblems: fc.integer({ min: 1, max: 12 }),
  maxFiles: fc.integer({ min: 1, max: 40 }),
  maxZippedBytes: fc.integer({ min: 100, max: 20_000 }),
  maxUnpackedBytes: fc.integer({ min: 100, max: 60_000 }),
});

function within(shard: PlannedShard, l: ShardLimits): boolean {
  return (
    shard.slugs.length <= l.maxProblems &&
    shard.files <= l.maxFiles &&
    shard.zippedBytes <= l.maxZippedBytes &&
    shard.unpackedBytes <= l.maxUnpackedBytes
  );
}

describe("planShards (properties)", () => {
  it("puts every problem in exactly one shard, in slug order, every shard within the ceilings", () => {
    fc.assert(
      fc.property(packageInput, limits, (input, l) => {
        const result = planShards(input, l);
        if (!result.ok) return;
        const slugs = input.problems.map((p) => p.slug).sort();
        expect(result.shards.flatMap((s) => s.slugs)).toEqual(slugs);
        for (const shard of result.shards) expect(within(shard, l)).toBe(true);
        expect(result.shards.map((s) => s.index)).toEqual(result.shards.map((_, i) => i));
      }),
      { numRuns: 300 },
    );
  });

  it("gives every shard every shared file and exactly its own problems' files", () => {
    fc.assert(
      fc.property(packageInput, limits, (input, l) => {
        const result = planShards(input, l);
        if (!result.ok) return;
        const shared = input.shared.map((f) => f.path);
        for (const shard of result.shards) {
          const own = input.problems
            .filter((p) => shard.slugs.includes(p.slug))
            .flatMap((p) => p.files.map((f) => f.path));
          expect([...shard.paths].sort()).toEqual([...shared, ...own].sort());
        }
      }),
      { numRuns: 200 },
    );
  });

  it("gives the same shards for the same input, whatever order the problems come in", () => {
    fc.assert(
      fc.property(packageInput, limits, fc.nat(), (input, l, seed) => {
        const shuffled = { ...input, problems: [...input.problems].sort(() => (seed % 3) - 1) };
        expect(planShards(shuffled, l)).toEqual(planShards(input, l));
        expect(planShards(input, l)).toEqual(planShards(structuredClone(input), l));
      }),
      { numRuns: 200 },
    );
  });

  it("fails only when a single problem with the shared files cannot fit, and names it", () => {
    fc.assert(
      fc.property(packageInput, limits, (input, l) => {
        const result = planShards(input, l);
        const alone = (files: ShardInput["shared"]) =>
          planShards({ shared: input.shared, problems: [{ slug: "a", dir: "problems/a", files }] }, l).ok;
        const impossible = input.problems.filter((p) => !alone(p.files)).map((p) => p.slug);
        const sharedFits = planShards({ shared: input.shared, problems: [] }, l).ok;
        if (result.ok) {
          expect(impossible).toEqual([]);
          expect(sharedFits).toBe(true);
        } else if (result.slug === null) {
          expect(sharedFits).toBe(false);
        } else {
          expect(impossible).toContain(result.slug);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("fills shards greedily: the next shard's first problem would not have fit in the one before", () => {
    fc.assert(
      fc.property(packageInput, limits, (input, l) => {
        const result = planShards(input, l);
        if (!result.ok) return;
        const bySlug = new Map(input.problems.map((p) => [p.slug, p]));
        for (let i = 0; i + 1 < result.shards.length; i++) {
          const shard = result.shards[i]!;
          const next = bySlug.get(result.shards[i + 1]!.slugs[0]!)!;
          const files = [...shard.slugs.flatMap((s) => bySlug.get(s)!.files), ...next.files];
          const merged = planShards(
            { shared: input.shared, problems: [{ slug: "merged", dir: "problems/merged", files }] },
            { ...l, maxProblems: Number.MAX_SAFE_INTEGER },
          );
          const tooMany = shard.slugs.length + 1 > l.maxProblems;
          expect(tooMany || !merged.ok).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe("planShards", () => {
  it("makes one shard of the shared files for a campaign without problems", () => {
    const result = planShards({ shared: [{ path: "campaign.json", size: 10, zipped: 100 }], problems: [] });
    expect(result).toMatchObject({ ok: true, shards: [{ index: 0, slugs: [], paths: ["campaign.json"] }] });
  });

  it("cuts 7 problems at 2 per shard into 4 shards", () => {
    const problems = Array.from({ length: 7 }, (_, i) => ({
      slug: `p${i}`,
      dir: `problems/p${i}`,
      files: [{ path: `problems/p${i}/problem.json`, size: 1, zipped: 1 }],
    }));
    const result = planShards({ shared: [], problems }, { ...CLI_SHARD_LIMITS, maxProblems: 2 });
    expect(result.ok && result.shards.map((s) => s.slugs)).toEqual([
      ["p0", "p1"],
      ["p2", "p3"],
      ["p4", "p5"],
      ["p6"],
    ]);
  });
});

describe("measurePackage", () => {
  it("bounds each real shard archive from above and assigns files by the plan's problem dirs", async () => {
    const tree = memoryTree(campaignFiles(9));
    const lint = await lintPackage(tree);
    expect(lint.ok).toBe(true);
    const input = await measurePackage(tree, lint.plan!);
    expect(input.shared.map((f) => f.path)).toContain("campaign.json");
    expect(input.problems.find((p) => p.slug === "p-0")?.dir).toBe("problems/d-9");
    const result = planShards(input, { ...CLI_SHARD_LIMITS, maxProblems: 4 });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.shards.map((s) => s.slugs.length)).toEqual([4, 4, 1]);
    for (const shard of result.shards) {
      const archive = await packArchive(tree, shard.paths);
      expect(archive.size_bytes).toBeLessThanOrEqual(shard.zippedBytes);
      // Packing is deterministic: the shard's hash is stable.
      expect((await packArchive(tree, shard.paths)).content_hash).toBe(archive.content_hash);
      const lintShard = await lintPackage(memoryTree(await readAll(tree, shard.paths)));
      expect(lintShard.ok).toBe(true);
    }
  });

  it("measures a package that fits even uncompressed from sizes alone, and plans the same shards", async () => {
    const tree = memoryTree(campaignFiles(9));
    const lint = await lintPackage(tree);
    const limits = { ...CLI_SHARD_LIMITS, maxProblems: 4 };
    const deflated = planShards(await measurePackage(tree, lint.plan!), limits);
    const sized = planShards(await measurePackage(tree, lint.plan!, limits), limits);
    if (!deflated.ok || !sized.ok) throw new Error("the package should shard");
    expect(sized.shards.map((s) => [s.slugs, s.paths])).toEqual(
      deflated.shards.map((s) => [s.slugs, s.paths]),
    );
    for (const [i, shard] of sized.shards.entries()) {
      expect(shard.zippedBytes).toBeGreaterThanOrEqual(deflated.shards[i]!.zippedBytes);
    }
    // Under a zipped ceiling the size bound passes, the files are deflated to measure them.
    const tight = { ...limits, maxZippedBytes: deflated.shards[0]!.zippedBytes + 1 };
    expect(await measurePackage(tree, lint.plan!, tight)).toEqual(await measurePackage(tree, lint.plan!));
  });

  it("makes a standalone problem package one problem holding every file", async () => {
    const { scaffoldPackage } = await import("../../src/cli/scaffold-package.ts");
    const tree = memoryTree(scaffoldPackage({ slug: "solo", campaign: false }));
    const lint = await lintPackage(tree);
    const input = await measurePackage(tree, lint.plan!);
    expect(input.shared).toEqual([]);
    expect(input.problems).toHaveLength(1);
    expect(input.problems[0]!.files.map((f) => f.path)).toEqual([...tree.paths()]);
  });
});

async function readAll(tree: ReturnType<typeof memoryTree>, paths: readonly string[]) {
  const files: Record<string, Uint8Array> = {};
  for (const path of paths) files[path] = await tree.read(path);
  return files;
}
