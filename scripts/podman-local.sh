#!/usr/bin/env bash
# podman as the tests run it, rootful, on machines like the ones handpose is built on (virtual machines
# with hybrid cgroups and a locked RLIMIT_NOFILE): vfs storage of the checkout's own in
# .build-image/podman (no overlay mounts; nothing shared with the system's images), runc (crun fails on
# hybrid cgroups), cgroupfs, and no default ulimits (podman's default raises RLIMIT_NOFILE, which such a
# machine refuses: "error setting rlimit type 7"). Elsewhere plain podman, or docker, runs the image as is.
#   scripts/podman-local.sh ARGS...   (as podman ARGS...)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
command -v podman >/dev/null || { echo "podman-local: podman not found; make setup installs it" >&2; exit 3; }
state=$here/.build-image/podman
mkdir -p "$state"
[ -f "$state/containers.conf" ] || printf '[containers]\ndefault_ulimits = []\n' >"$state/containers.conf"
# The run root holds sockets, whose paths must stay short: /run, named after the checkout.
run=/run/handpose-podman-$(printf '%s' "$here" | sha256sum | cut -c1-12)
export CONTAINERS_CONF=$state/containers.conf
exec podman --storage-driver vfs --root "$state/storage" --runroot "$run" --runtime runc --cgroup-manager cgroupfs "$@"
