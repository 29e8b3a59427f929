import { createBwrapBackend } from "../../src/sandbox/bwrap-backend.ts";
import { bwrapRuns } from "../../src/sandbox/detect-sandbox.ts";
import { describeSandbox } from "./sandbox-suite.ts";

describeSandbox("bwrap", async () =>
  bwrapRuns()
    ? { backend: createBwrapBackend(), binding: { backend: "bwrap", local_image: "/usr/bin/python3" } }
    : "bwrap does not run here (apt-get install bubblewrap)",
);
