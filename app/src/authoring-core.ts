/**
 * @svc/app/authoring-core: the layers a package is read, linted and planned with (hash, tree,
 * lint, plan) and nothing above them. The service's validation threads import it instead of the
 * entry, so a thread that starts for an upload loads these modules alone, not the sandbox
 * backends (dockerode), the client or the commands: 0.26 s of CPU to start instead of 0.66 s.
 * Every name here is also exported by the entry (src/index.ts), from the same modules.
 */

export { type LintReport, lintPackage } from "./plan/lint-package.ts";
export { bytesTree } from "./tree/bytes-tree.ts";
export { type FileTree, SERVER_ARCHIVE_LIMITS, TreeError } from "./tree/file-tree.ts";
export { openZipTree } from "./tree/open-zip-tree.ts";
