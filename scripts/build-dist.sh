#!/usr/bin/env bash
# make dist: handpose-<version>-linux-x86_64.tar.gz, a folder to unpack anywhere: bin/handpose (the
# Swift runtime linked in, kernels chosen at run time), share/handpose/models (SHA-256 checked by make
# setup), bench's scripts, bash, zsh and fish completions, and README.txt naming the Debian packages it
# needs at run time (scripts/runtime-packages.txt). No toolchain and no -dev package is needed to run it.
#   scripts/build-dist.sh OUTDIR      (prints the tarball's path)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 64; }
outdir=$(realpath -m -- "$1")
cd "$(dirname "$0")/.."
mkdir -p .build-image "$outdir"
work=$(mktemp -d "$PWD/.build-image/dist.XXXXXX")
trap 'rm -rf "$work"' EXIT
make --no-print-directory install PREFIX="$work/staging" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; exit 3; }
version=$("$work/staging/bin/handpose" --version)
arch=$(uname -m)
name=handpose-$version-linux-$arch
mv "$work/staging" "$work/$name"
packages=$(grep -v '^#' scripts/runtime-packages.txt | tr '\n' ' ')
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
cat >"$work/$name/README.txt" <<TXT
handpose $version for Linux $arch (source commit $commit)

Run time: Debian 12 (bookworm) with these packages, nothing else (no Swift toolchain, no -dev packages):
  apt-get install --no-install-recommends $packages
Then: bin/handpose --help. The models are in share/handpose/models, where bin/handpose looks for them;
completions for bash, zsh and fish are under share/. One binary for every x86-64 CPU: the kernels
(baseline, AVX2, AVX-512) are chosen at run time. The guide is README.md in the source.
TXT
tar -C "$work" --owner=0 --group=0 --numeric-owner -czf "$work/$name.tar.gz" "$name"
mv "$work/$name.tar.gz" "$outdir/$name.tar.gz"
echo "$outdir/$name.tar.gz"
