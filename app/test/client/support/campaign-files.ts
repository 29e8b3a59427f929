import { scaffoldPackage } from "../../../src/cli/scaffold-package.ts";

/**
 * A campaign package that lints clean with `count` problems, as in-memory files. Directory names
 * run in the opposite order to slugs (`d-<count-i>` holds `p-<i>`), so anything that orders by
 * directory instead of slug shows. `prefix` replaces the `p` of slugs; `statement` varies a
 * problem's statement.
 */
export function campaignFiles(
  count: number,
  options: { campaign?: string; prefix?: string; statement?: (slug: string) => string } = {},
): Record<string, string> {
  const base = scaffoldPackage({ slug: "x", campaign: true });
  const files: Record<string, string> = {};
  for (const [path, text] of Object.entries(base)) {
    if (!path.startsWith("problems/")) files[path] = text;
  }
  if (options.campaign) {
    files["campaign.json"] = JSON.stringify(
      { ...JSON.parse(files["campaign.json"]!), slug: options.campaign },
      null,
      2,
    );
  }
  const width = String(count).length;
  for (let i = 0; i < count; i++) {
    const slug = `${options.prefix ?? "p"}-${String(i).padStart(width, "0")}`;
    const dir = `problems/d-${String(count - i).padStart(width, "0")}`;
    const problem = JSON.parse(base["problems/x/problem.json"]!);
    files[`${dir}/problem.json`] = JSON.stringify({ ...problem, slug, title: `Problem ${slug}` }, null, 2);
    files[`${dir}/statement.md`] =
      options.statement?.(slug) ?? `# ${slug}\n\nFind the positive integer whose square is 1522756.\n`;
  }
  return files;
}
