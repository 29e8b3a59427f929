import * as core from "@actions/core";
import { runAction } from "./run-action.ts";

/**
 * The Action's entry, bundled into lint-action/dist/index.js (`npm run build:action`) and run by
 * GitHub on node24: inputs from `INPUT_*`, annotations as workflow commands, the job summary to
 * `GITHUB_STEP_SUMMARY`, outputs to `GITHUB_OUTPUT`.
 */
try {
  await runAction({
    getInput: (name) => core.getInput(name),
    setOutput: (name, value) => core.setOutput(name, value),
    annotate: (level, message, at) => {
      // The code leads the message rather than taking `title`, so the command reads `::error file=...`.
      const properties = { file: at.file, startLine: at.line };
      message = `[${at.title}] ${message}`;
      if (level === "error") core.error(message, properties);
      else if (level === "warning") core.warning(message, properties);
      else core.notice(message, properties);
    },
    info: (text) => core.info(text),
    summary: async (markdown) => {
      if (process.env.GITHUB_STEP_SUMMARY) await core.summary.addRaw(markdown, true).write();
      else core.info(markdown);
    },
    setFailed: (message) => core.setFailed(message),
    cwd: process.env.GITHUB_WORKSPACE ?? process.cwd(),
  });
} catch (error) {
  core.setFailed(`svc: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
}
