import Docker from "dockerode";
import { createDockerBackend, pingDocker } from "../../src/sandbox/docker-backend.ts";
import { describeSandbox } from "./sandbox-suite.ts";

const IMAGE = process.env.SVC_PYTHON_IMAGE ?? "svc-python:1";

describeSandbox("docker", async () => {
  const docker = new Docker();
  if (!(await pingDocker(docker))) return "no Docker engine answers (start dockerd)";
  try {
    const image = await docker.getImage(IMAGE).inspect();
    return {
      backend: createDockerBackend({ docker }),
      binding: { backend: "docker", local_image: image.Id },
    };
  } catch {
    return `image ${IMAGE} is missing (scripts/build-python-image.sh builds it)`;
  }
});
