#!/usr/bin/env bash
# Builds the svc-runtime/python:1 image offline (no registry needed, only Debian's archive) and
# imports it into the local Docker engine as svc-python:1. Idempotent: does nothing when the image
# already exists. The image holds python3 with its full standard library (python3-minimal lacks json).
# Needs root (debootstrap), debootstrap and a running Docker engine.
#   scripts/build-python-image.sh [image-name]   (default svc-python:1)
set -euo pipefail
IMAGE="${1:-svc-python:1}"
if docker image inspect "$IMAGE" >/dev/null 2>&1; then
  echo "$IMAGE exists: $(docker image inspect --format '{{.Id}}' "$IMAGE")"
  exit 0
fi
# The mirror apt already uses here (deb822 or one-line sources), else Debian's default.
MIRROR="${DEBIAN_MIRROR:-$(grep -rhoE '^(URIs:|deb) +https?://[^ ]+/debian/?( |$)' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null | grep -oE 'https?://[^ ]+' | head -n1 || true)}"
MIRROR="${MIRROR:-http://deb.debian.org/debian}"
ROOT="$(mktemp -d "${TMPDIR:-/tmp}/svc-python-root.XXXXXX")"
trap 'rm -rf "$ROOT"' EXIT
echo "debootstrap bookworm from $MIRROR into $ROOT"
debootstrap --variant=minbase --include=python3 bookworm "$ROOT" "$MIRROR" >"$ROOT.log" 2>&1 ||
  { tail -n 20 "$ROOT.log"; rm -f "$ROOT.log"; exit 1; }
rm -f "$ROOT.log"
# Apt caches and logs are not part of the runtime.
rm -rf "$ROOT"/var/cache/apt/archives/*.deb "$ROOT"/var/lib/apt/lists/* "$ROOT"/var/log/*
tar -C "$ROOT" -c . | docker import - "$IMAGE" >/dev/null
echo "$IMAGE built: $(docker image inspect --format '{{.Id}}' "$IMAGE")"
