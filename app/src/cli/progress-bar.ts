import type { DraftEvent } from "../client/publish-package.ts";

/**
 * A one-line progress bar for `svc draft`, redrawn in place on stderr. Only on a terminal: piped
 * output and CI logs get no carriage returns.
 */
export function progressBar(write: (text: string) => void, width = 24) {
  let total = 0;
  let done = 0;
  let drawn = false;
  const draw = (label: string) => {
    const filled = total === 0 ? width : Math.round((done / total) * width);
    write(`\r\u001b[2K[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} shards ${label}`);
    drawn = true;
  };
  return {
    onEvent(event: DraftEvent) {
      switch (event.kind) {
        case "planned":
          total = event.shards;
          draw("planned");
          break;
        case "step":
          draw(`shard ${event.shard + 1}: ${event.step}`);
          break;
        case "retry":
          draw(`shard ${event.shard + 1}: ${event.step} retry in ${(event.waitMs / 1000).toFixed(0)} s`);
          break;
        case "fresh_upload":
          draw(`shard ${event.shard + 1}: ${event.code}, uploading again`);
          break;
        case "conformance_failed":
          draw(`shard ${event.shard + 1}: a checker failed its conformance fixtures`);
          break;
        case "shard_done":
          done += 1;
          draw(`shard ${event.shard + 1}: ${event.status}`);
          break;
        default: {
          const never: never = event;
          throw new Error(`unhandled event ${JSON.stringify(never)}`);
        }
      }
    },
    /** Clears the line so what follows starts clean. */
    end() {
      if (drawn) write("\r\u001b[2K");
    },
  };
}
