import Docker from "dockerode";
import { describe, expect, it } from "vitest";
import { createDockerBackend, pingDocker } from "../../src/sandbox/docker-backend.ts";
import { scriptJob } from "./job-fixtures.ts";
import { describeSandbox } from "./sandbox-suite.ts";

const IMAGE = process.env.SVC_PYTHON_IMAGE ?? "svc-python:1";

// Script checkers run under the supervisor as the warm container's PID 1; an image's own
// entrypoint runs as an exec beside the hold loop: the suite runs on both.
for (const [name, superviseScripts] of [
  ["docker", true],
  ["docker, checker as an exec", false],
] as const) {
  describeSandbox(name, async () => {
    const docker = new Docker();
    if (!(await pingDocker(docker))) return "no Docker engine answers (start dockerd)";
    try {
      const image = await docker.getImage(IMAGE).inspect();
      return {
        backend: createDockerBackend({ docker, superviseScripts }),
        binding: { backend: "docker", local_image: image.Id },
      };
    } catch {
      return `image ${IMAGE} is missing (scripts/build-python-image.sh builds it)`;
    }
  });
}

describe("docker warm pool", () => {
  it("evil/leaked-containers: removes every container it started, warm or used, when closed", async () => {
    const docker = new Docker();
    if (!(await pingDocker(docker))) {
      if (process.env.CI === "true") throw new Error("docker is required in CI");
      return;
    }
    const image = await docker.getImage(IMAGE).inspect();
    const backend = createDockerBackend({ docker, poolSize: 2 });
    const binding = { backend: "docker" as const, local_image: image.Id };
    const ok = `import json\nopen("/output/result.json", "w").write(json.dumps({"result": "verified"}))\n`;
    for (let i = 0; i < 3; i++) expect((await backend.run(scriptJob(ok), binding)).result).toBe("verified");
    await backend.settled();
    const ours = () => docker.listContainers({ all: true, filters: { label: [backend.label] } });
    // Two warm ones wait for the next runs; the three used ones are gone.
    expect(await ours()).toHaveLength(2);
    await backend.close();
    expect(await ours()).toHaveLength(0);
    await expect(backend.run(scriptJob(ok), binding)).rejects.toThrow(/closed/);
  });

  it("evil/killed-pool: removes the warm containers a killed process left, at its first run", async () => {
    const docker = new Docker();
    if (!(await pingDocker(docker))) {
      if (process.env.CI === "true") throw new Error("docker is required in CI");
      return;
    }
    const image = await docker.getImage(IMAGE).inspect();
    // What a kill -9 leaves: a pool container whose pid (above the kernel's pid_max) is gone.
    const orphan = await docker.createContainer({
      Image: image.Id,
      Cmd: ["true"],
      Labels: { "svc.sandbox": "checker", "svc.pool": "2000000000-orphan" },
      HostConfig: { NetworkMode: "none" },
    });
    const backend = createDockerBackend({ docker, poolSize: 0 });
    try {
      const ok = `import json\nopen("/output/result.json", "w").write(json.dumps({"result": "verified"}))\n`;
      const outcome = await backend.run(scriptJob(ok), { backend: "docker", local_image: image.Id });
      expect(outcome.result).toBe("verified");
      const left = await docker.listContainers({ all: true, filters: { id: [orphan.id] } });
      expect(left).toHaveLength(0);
    } finally {
      await backend.close();
      await orphan.remove({ force: true }).catch(() => undefined);
    }
  });
});
