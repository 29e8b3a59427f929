import type { StuckWork } from "../../operations/list-stuck-work.ts";

/** `svc-server stuck` for a person: one titled table per list, ages as "3d 4h", "2h 5m", "45s". */
export function stuckWorkTable(stuck: StuckWork): string {
  return [
    section(
      "Conformance pending",
      stuck.conformance_pending.total,
      ["age", "implementation", "contract", "stage", "version"],
      stuck.conformance_pending.items.map((item) => [
        humanAge(item.age_seconds),
        item.verifier_implementation_id,
        item.verifier_contract_id,
        item.stage_key,
        String(item.version_number),
      ]),
    ),
    section(
      "Runs waiting",
      stuck.runs_waiting.total,
      ["age", "run", "status", "trigger", "submission"],
      stuck.runs_waiting.items.map((item) => [
        humanAge(item.age_seconds),
        item.verification_run_id,
        item.status,
        item.trigger,
        item.submission_id,
      ]),
    ),
    section(
      "Webhook deliveries failing",
      stuck.deliveries_failing.total,
      ["subscription", "failures", "last attempt", "status", "last error", "url"],
      stuck.deliveries_failing.items.map((item) => [
        item.event_subscription_id,
        String(item.failures),
        item.last_attempted_at ?? "-",
        item.last_status_code === null ? "-" : String(item.last_status_code),
        oneLine(item.last_error ?? "-"),
        item.url ?? "-",
      ]),
    ),
  ].join("\n");
}

function section(title: string, total: number, header: string[], rows: string[][]): string {
  const shown = rows.length < total ? ` (oldest ${rows.length} shown)` : "";
  if (rows.length === 0) return `${title}: none\n`;
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return `${title}: ${total}${shown}\n${[header, ...rows].map(line).join("\n")}\n`;
}

/** Seconds as the two largest units: "3d 4h", "2h 5m", "4m 10s", "45s". */
export function humanAge(seconds: number): string {
  const units: Array<[string, number]> = [
    ["d", 86_400],
    ["h", 3_600],
    ["m", 60],
    ["s", 1],
  ];
  const parts: string[] = [];
  let rest = seconds;
  for (const [unit, size] of units) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count > 0 || (parts.length > 0 && parts.length < 2)) parts.push(`${count}${unit}`);
    if (parts.length === 2) break;
  }
  return parts.length > 0 ? parts.join(" ") : "0s";
}

/** An error kept on one table line, at most 80 characters. */
function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}
