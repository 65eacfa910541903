#!/usr/bin/env bash
# Makes DEST a minimal Debian root file system (minbase) holding the EXTRA packages and nothing else: what
# `make image` turns into an image (with tini), what the dist tarball's test unpacks into (nothing more: the
# self-contained binary needs no package), and where the wheel's test installs the wheel (python3,
# python3-venv). Debian 12 (bookworm), or the suite HANDPOSE_DEBIAN_SUITE names (trixie: Debian 13).
# Needs root and debootstrap (make setup installs it);
# packages come from the Debian mirror apt already uses (HANDPOSE_DEBIAN_MIRROR overrides it), with
# bookworm-updates and bookworm-security applied. Documentation but copyright files, manual pages and
# message translations are left out, as debian:bookworm-slim leaves them out.
# The root is built once per package list and kept as a tarball in .build-image/; each call unpacks a
# fresh copy. --prepare builds the tarball only (make setup prepares the roots the tests use: make roots).
#   scripts/runtime-root.sh DEST [EXTRA...]
#   scripts/runtime-root.sh --prepare [EXTRA...]
set -euo pipefail
[ $# -ge 1 ] || { echo "usage: $0 DEST [EXTRA-PACKAGE...] | --prepare [EXTRA-PACKAGE...]" >&2; exit 64; }
dest=""
[ "$1" = --prepare ] || dest=$(realpath -m -- "$1")
shift
cd "$(dirname "$0")/.."
[ "$(id -u)" -eq 0 ] || { echo "runtime-root: needs root (debootstrap and chroot); run it as root or with sudo" >&2; exit 3; }
command -v debootstrap >/dev/null || { echo "runtime-root: debootstrap not found; make setup installs it" >&2; exit 3; }
[ -z "$dest" ] || [ ! -e "$dest" ] || { echo "runtime-root: $dest exists; give a new folder" >&2; exit 3; }

packages=("$@")
suite=${HANDPOSE_DEBIAN_SUITE:-bookworm}
. scripts/debian-mirror.sh

# The ISO week is part of the key: security updates are taken again each week, not frozen in the cache.
key=$(printf '%s\n' "$suite" "$mirror" "$security" "$(date -u +%G-W%V)" "${packages[@]}" | sha256sum | cut -c1-16)
cache=.build-image/runtime-root-$key.tar
mkdir -p .build-image
if [ ! -f "$cache" ]; then
  work=$(mktemp -d .build-image/root.XXXXXX)
  trap 'umount "$work/root/proc" 2>/dev/null || true; rm -rf --one-file-system "$work"' EXIT
  echo "runtime-root: debootstrap $suite (minbase) from $mirror with ${packages[*]}" >&2
  include=(); [ ${#packages[@]} -eq 0 ] || include=(--include="$(IFS=,; echo "${packages[*]}")")
  debootstrap --variant=minbase "${include[@]}" "$suite" "$work/root" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; echo "runtime-root: debootstrap failed (log above)" >&2; exit 3; }
  r=$work/root
  # What debian:bookworm-slim leaves out, also for packages the upgrade below installs.
  cat >"$r/etc/dpkg/dpkg.cfg.d/handpose-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
EOF
  cat >"$r/etc/apt/sources.list.d/debian.sources" <<EOF
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: $security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  rm -f "$r/etc/apt/sources.list"
  cp /etc/resolv.conf "$r/etc/resolv.conf"
  mount -t proc proc "$r/proc"
  echo "runtime-root: applying $suite-updates and $suite-security" >&2
  chroot "$r" /usr/bin/apt-get update -qq >"$work/apt.log" 2>&1 &&
    DEBIAN_FRONTEND=noninteractive chroot "$r" /usr/bin/apt-get -y -qq --no-install-recommends upgrade >>"$work/apt.log" 2>&1 ||
    { tail -20 "$work/apt.log" >&2; echo "runtime-root: apt-get upgrade in the new root failed (log above)" >&2; exit 3; }
  chroot "$r" /usr/bin/apt-get clean
  umount "$r/proc"
  : >"$r/etc/resolv.conf"
  rm -rf "$r"/var/lib/apt/lists/* "$r"/var/cache/apt/*.bin "$r"/var/log/apt/* "$r"/var/log/dpkg.log "$r"/var/cache/debconf/*-old
  find "$r/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete
  find "$r/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$r"/usr/share/man/* "$r"/usr/share/info/* "$r"/usr/share/locale/* "$r"/usr/share/lintian/*
  tar -C "$r" --numeric-owner -cf "$cache.$$.partial" .
  mv "$cache.$$.partial" "$cache"
  rm -rf --one-file-system "$work"; trap - EXIT
fi
if [ -z "$dest" ]; then echo "runtime-root: $suite with ${packages[*]:-no extra package} ready ($cache)" >&2; exit 0; fi
mkdir -p "$dest"
tar -C "$dest" --numeric-owner -xpf "$cache"
echo "$dest"
