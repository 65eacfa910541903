#!/usr/bin/env bash
# make dist: handpose-<version>-linux-x86_64.tar.gz, a folder to unpack anywhere: bin/handpose (the
# self-contained binary: FFmpeg, the Swift runtime and the rest linked in, needing only glibc 2.34 or later;
# kernels chosen at run time), share/handpose/models (SHA-256 checked by make setup), the licence notices,
# bench's scripts, bash, zsh and fish completions, and README.txt. No package is needed to run it.
#   scripts/build-dist.sh OUTDIR      (prints the tarball's path)
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 64; }
outdir=$(realpath -m -- "$1")
cd "$(dirname "$0")/.."
mkdir -p .build-image "$outdir"
work=$(mktemp -d "$PWD/.build-image/dist.XXXXXX")
trap 'rm -rf "$work"' EXIT
make --no-print-directory install SELFCONTAINED=1 PREFIX="$work/staging" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; exit 3; }
version=$("$work/staging/bin/handpose" --version)
arch=$(uname -m)
name=handpose-$version-linux-$arch
mv "$work/staging" "$work/$name"
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
cat >"$work/$name/README.txt" <<TXT
handpose $version for Linux $arch (source commit $commit)

Runs on any x86-64 Linux with glibc 2.34 or later (Debian 12 and 13, Ubuntu 22.04 and 24.04, RHEL 9 and its
kin, Fedora), with no package installed: FFmpeg and everything else it uses are linked in
(share/handpose/licenses names them, their Debian source packages and licences). Then: bin/handpose --help. The models are in share/handpose/models, where bin/handpose looks for them;
completions for bash, zsh and fish are under share/. One binary for every x86-64 CPU: the kernels
(baseline, AVX2, AVX-512) are chosen at run time. The guide is README.md in the source.
TXT
tar -C "$work" --owner=0 --group=0 --numeric-owner -czf "$work/$name.tar.gz" "$name"
mv "$work/$name.tar.gz" "$outdir/$name.tar.gz"
echo "$outdir/$name.tar.gz"
