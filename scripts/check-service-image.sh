#!/usr/bin/env bash
# Builds the service image from the Dockerfile and runs each of its roles against a PostgreSQL:
# the image builds the authoring toolkit, `migrate` applies the migrations, `serve` answers /healthz with {"ok":true} and exits 0 on
# SIGTERM, `worker` starts and exits 0 on SIGTERM (also when stopped while it loads). Needs a running Docker engine and a PostgreSQL
# reachable from the host network (DATABASE_URL, default the machine's at 127.0.0.1:5432).
#   scripts/check-service-image.sh            with NODE_IMAGE (default node:24-bookworm-slim)
#   NODE_IMAGE=local scripts/check-service-image.sh
# `local` builds a Node 24 base where Docker Hub is out of reach: the svc-python:1 image
# (scripts/build-python-image.sh) with the project's own Node 24 and npm, trusting the host's CA
# bundle (a registry behind a TLS proxy).
set -euo pipefail
cd "$(dirname "$0")/.."
NODE_IMAGE="${NODE_IMAGE:-node:24-bookworm-slim}"
ADMIN_URL="${DATABASE_URL:-postgres://root@127.0.0.1:5432/postgres}"
IMAGE="svc-service:check"
if [ "$NODE_IMAGE" = local ]; then
  base="$(mktemp -d)"
  trap 'rm -rf "$base"' EXIT
  cp -L node_modules/node/bin/node "$base/node"
  cp -r "$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")" "$base/npm"
  cp /etc/ssl/certs/ca-certificates.crt "$base/host-ca.crt"
  cat >"$base/Dockerfile" <<'DOCKERFILE'
FROM svc-python:1
COPY node /usr/local/bin/node
COPY npm /usr/local/lib/node_modules/npm
COPY host-ca.crt /etc/ssl/certs/host-ca.crt
ENV NPM_CONFIG_CAFILE=/etc/ssl/certs/host-ca.crt
RUN ln -s /usr/local/lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm
DOCKERFILE
  docker build -q -t svc-node24-base:local "$base" >/dev/null
  NODE_IMAGE=svc-node24-base:local
fi
docker build -q --build-arg NODE_IMAGE="$NODE_IMAGE" -t "$IMAGE" . >/dev/null
echo "built $IMAGE on $NODE_IMAGE: $(docker image inspect --format '{{.Size}}' "$IMAGE") bytes"

# The authoring toolkit (get_authoring_toolkit) is bundled by esbuild inside the service.
toolkit_bytes="$(docker run --rm --entrypoint node "$IMAGE" --input-type=module -e \
  'const { buildToolkit } = await import("/srv/svc/server/src/toolkit/build-toolkit.ts"); console.log((await buildToolkit()).length)')"
[ "$toolkit_bytes" -gt 100000 ] || { echo "the image cannot build the authoring toolkit ($toolkit_bytes bytes)" >&2; exit 1; }
echo "the image builds the authoring toolkit: $toolkit_bytes bytes"

db="svc_image_check_$$"
psql "$ADMIN_URL" -qc "create database $db"
url="${ADMIN_URL%/*}/$db"
cleanup_db() { psql "$ADMIN_URL" -qc "drop database if exists $db with (force)"; }
trap cleanup_db EXIT

docker run --rm --network host -e DATABASE_URL="$url" "$IMAGE" migrate
port=18787
web=$(docker run -d --network host -e DATABASE_URL="$url" -e PORT=$port -e SVC_MIGRATE=wait -e SVC_WORKERS=0 "$IMAGE" serve)
worker=$(docker run -d --network host -e DATABASE_URL="$url" -e SVC_MIGRATE=wait "$IMAGE" worker)
for _ in $(seq 1 60); do curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break; sleep 0.5; done
health="$(curl -s "http://127.0.0.1:$port/healthz")"
docker stop -t 20 "$web" "$worker" >/dev/null
codes="$(docker inspect --format '{{.State.ExitCode}}' "$web" "$worker" | tr '\n' ' ')"
# Read whole before grep: `grep -q` stops at the first match, and under pipefail the SIGPIPE that
# `docker logs` then gets would fail the check whenever a line follows the match.
worker_logs="$(docker logs "$worker" 2>&1)"
grep -q '"svc worker is running"' <<<"$worker_logs" || { echo "$worker_logs"; echo "the worker did not start" >&2; exit 1; }
docker rm "$web" "$worker" >/dev/null
[ "$health" = '{"ok":true}' ] || { echo "serve answered /healthz with: $health" >&2; exit 1; }
[ "$codes" = "0 0 " ] || { echo "exit codes on SIGTERM (serve, worker): $codes" >&2; exit 1; }
# A SIGTERM while the modules still load (a rollout stopping a container it just started): node is
# PID 1, which ignores signals nothing handles; svc-server keeps it and stops once it can.
early=$(docker run -d --network host -e DATABASE_URL="$url" -e SVC_MIGRATE=wait "$IMAGE" worker)
sleep 0.3
docker stop -t 20 "$early" >/dev/null
early_code="$(docker inspect --format '{{.State.ExitCode}}' "$early")"
docker rm "$early" >/dev/null
[ "$early_code" = "0" ] || { echo "a worker stopped while starting exited $early_code, not 0" >&2; exit 1; }
echo "migrate, serve (/healthz $health) and worker ran; both exited 0 on SIGTERM, also one stopped while starting"
