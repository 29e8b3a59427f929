# The svc service image: one image for every role of a deployment (docs/deployment.md):
#   docker run svc serve      web replica (set SVC_WORKERS=0 when workers run apart)
#   docker run svc worker     verification, conformance and provisioning jobs
#   docker run svc migrate    once per deploy, before the others (they run with SVC_MIGRATE=wait)
# Any Node 24 image on Debian works as the base; NODE_IMAGE picks another (an internal mirror).
ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS dependencies
WORKDIR /srv/svc
COPY package.json package-lock.json ./
COPY schemas/package.json schemas/package.json
COPY app/package.json app/package.json
COPY server/package.json server/package.json
COPY github-app/package.json github-app/package.json
COPY lint-action/package.json lint-action/package.json
# Production dependencies only: no test tools, and no `node` package (the image has its own Node 24).
# --ignore-scripts: the root `prepare` script builds the CLI bundle with esbuild (a devDependency,
# from sources not copied yet; app/bin/svc.js is committed), and no production dependency needs
# its install script here (package.json's allowScripts runs none of them on a checkout either).
RUN npm ci --omit=dev --ignore-scripts --no-fund --no-audit

FROM ${NODE_IMAGE}
# Sandboxes for script checkers: bubblewrap (workers that run them in process) in the root of the
# image an operator bound (skopeo copies it, umoci unpacks it: docs/sandbox.md), mkfs.ext4 for a
# run's disk; python3 only for a trial's SVC_BWRAP_HOST_INTERPRETER=1; workers that use a host's
# Docker engine instead mount its socket (docs/deployment.md, "Workers").
RUN apt-get update \
  && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
     bubblewrap python3 e2fsprogs ca-certificates skopeo umoci \
  && rm -rf /var/lib/apt/lists/*
WORKDIR /srv/svc
COPY --from=dependencies /srv/svc/node_modules node_modules
COPY package.json ./
COPY schemas/package.json schemas/package.json
COPY schemas/json schemas/json
COPY schemas/src schemas/src
COPY schemas/bin schemas/bin
# The schemas' validators compiled ahead of time (schemas/dist/): a validation thread's first
# validation loads them instead of compiling every schema (issue 38).
RUN node schemas/bin/build-validators.ts
COPY app/package.json app/package.json
COPY app/bin app/bin
COPY app/src app/src
COPY server/package.json server/package.json
COPY server/bin server/bin
COPY server/src server/src
COPY docs/authoring-skill docs/authoring-skill
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    SVC_DATA_DIR=/var/lib/svc
RUN mkdir -p /var/lib/svc
VOLUME ["/var/lib/svc"]
# Readiness is GET /healthz on web replicas (200, or 503 while the database is away or behind, or
# while shutting down); workers serve no HTTP: their liveness is their heartbeat in the database.
EXPOSE 8787
ENTRYPOINT ["node", "server/bin/svc-server.js"]
CMD ["serve"]
