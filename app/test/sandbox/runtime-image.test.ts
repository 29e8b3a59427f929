import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { createBwrapBackend } from "../../src/sandbox/bwrap-backend.ts";
import type { RuntimeBinding } from "../../src/sandbox/checker-job.ts";
import { bwrapRuns, detectSandbox } from "../../src/sandbox/detect-sandbox.ts";
import { createDockerBackend, pingDocker } from "../../src/sandbox/docker-backend.ts";
import { runChecker } from "../../src/sandbox/run-checker.ts";
import { chainIdOf, prepareRuntimeRootfs } from "../../src/sandbox/runtime-rootfs.ts";
import { scriptJob } from "./job-fixtures.ts";
import { describeSandbox } from "./sandbox-suite.ts";

const IMAGE = process.env.SVC_PYTHON_IMAGE ?? "svc-python:1";
const cacheDir = mkdtempSync(join(tmpdir(), "svc-runtimes-"));

/** The runtime image unpacked for bubblewrap, once for the file (skopeo + umoci, about 10 s). */
let prepared: Promise<{ chainId: string; rootfs: string } | string> | undefined;
function preparedImage() {
  prepared ??= (async () => {
    if (!bwrapRuns()) return "bwrap does not run here (apt-get install bubblewrap)";
    const docker = new Docker();
    if (!(await pingDocker(docker))) return "no Docker engine answers (start dockerd)";
    try {
      await docker.getImage(IMAGE).inspect();
    } catch {
      return `image ${IMAGE} is missing (scripts/build-python-image.sh builds it)`;
    }
    return prepareRuntimeRootfs(`docker-daemon:${IMAGE}`, cacheDir);
  })();
  return prepared;
}

// The whole isolation suite, in the image's root instead of on the host's /usr.
describeSandbox("bwrap in the runtime image's root", async () => {
  const image = await preparedImage();
  if (typeof image === "string") return image;
  return {
    backend: createBwrapBackend({ diskPoolSize: 0 }),
    binding: {
      backend: "bwrap",
      local_image: image.chainId,
      rootfs: image.rootfs,
      bytes_digest: image.chainId,
    },
  };
});

describe("the runtime that ran is the runtime recorded (issue 34 item 1)", () => {
  // Keeps what identifies the runtime as evidence: its interpreter and its /etc/os-release.
  const probe = `import json, os, platform, sys
os.makedirs("/output/evidence", exist_ok=True)
release = open("/etc/os-release").read() if os.path.exists("/etc/os-release") else "no /etc/os-release"
json.dump({"python": sys.version, "implementation": platform.python_implementation(), "os_release": release},
          open("/output/evidence/runtime.json", "w"), sort_keys=True)
json.dump({"result": "verified"}, open("/output/result.json", "w"))
`;

  it("gives the same evidence digest under Docker and under bubblewrap for the same image, unlike the host's interpreter", async () => {
    const image = await preparedImage();
    if (typeof image === "string") {
      if (process.env.CI === "true") throw new Error(`required in CI: ${image}`);
      return;
    }
    const docker = new Docker();
    const inspected = await docker.getImage(IMAGE).inspect();
    // The ChainID names the same bytes whichever backend runs them.
    expect(chainIdOf(inspected.RootFS.Layers ?? [])).toBe(image.chainId);

    const dockerBackend = createDockerBackend({ docker, poolSize: 0 });
    const bwrapBackend = createBwrapBackend({ diskPoolSize: 0 });
    try {
      const underDocker = await dockerBackend.run(scriptJob(probe), {
        backend: "docker",
        local_image: inspected.Id,
      });
      const inImage: RuntimeBinding = { backend: "bwrap", local_image: image.chainId, rootfs: image.rootfs };
      const underBwrap = await bwrapBackend.run(scriptJob(probe), inImage);
      const onHost = await bwrapBackend.run(scriptJob(probe), {
        backend: "bwrap",
        local_image: "/usr/bin/python3",
      });
      expect(underDocker.result).toBe("verified");
      expect(underBwrap.result).toBe("verified");
      expect(underBwrap.evidence_hash).toBe(underDocker.evidence_hash);
      expect(onHost.evidence_hash).not.toBe(underDocker.evidence_hash);
    } finally {
      await dockerBackend.close?.();
      await bwrapBackend.close?.();
    }
  }, 120_000);

  it("reuses an unpacked image by its ChainID and refuses a source whose layers are other bytes", async () => {
    const image = await preparedImage();
    if (typeof image === "string") return;
    const again = await prepareRuntimeRootfs(`docker-daemon:${IMAGE}`, cacheDir, image.chainId);
    expect(again).toEqual(image);
    const other = mkdtempSync(join(tmpdir(), "svc-runtimes-"));
    await expect(
      prepareRuntimeRootfs(`docker-daemon:${IMAGE}`, other, `sha256:${"0".repeat(64)}`),
    ).rejects.toThrow(/holds the layers sha256:[0-9a-f]{64}, not the sha256:0{64}/);
  }, 120_000);

  it("on a machine with bubblewrap and no python3, still runs a checker in an image's root", async () => {
    const image = await preparedImage();
    if (typeof image === "string") return;
    const detected = await detectSandbox({ prefer: "bwrap", hostPythons: ["/nonexistent/python3"] });
    expect(detected.binding).toBeNull();
    expect(detected.description).toMatch(/^bwrap: runtime images only/);
    const outcome = await runChecker(scriptJob(probe), {
      binding: { backend: "bwrap", local_image: image.chainId, rootfs: image.rootfs },
      backends: detected.backends,
    });
    expect(outcome.result).toBe("verified");
    await detected.backends.bwrap?.close?.();
  }, 120_000);

  it("refuses a source that is not an image transport", async () => {
    await expect(prepareRuntimeRootfs("/usr/bin/python3", cacheDir)).rejects.toThrow(/not an image source/);
  });
});
