#!/usr/bin/env bash
# make image: an OCI image of handpose built on this machine with no container registry, only Debian's
# package mirror: a minimal Debian 12 root with tini (scripts/runtime-root.sh), the self-contained handpose
# installed in /opt/handpose with its models (make install SELFCONTAINED=1: no FFmpeg package is needed), tini as process 1, the user
# handpose (uid 10001) by default, labels naming the version, the source commit and each model's SHA-256.
# One image for every x86-64 CPU: the binary chooses its kernels at run time.
#   scripts/build-image.sh OUTDIR      (writes OUTDIR/handpose-<version>.oci.tar, image handpose:<version>)
# Needs root, buildah (make setup installs it). Loads with podman load -i, docker load -i, or
# apptainer build handpose.sif oci-archive://OUT.oci.tar.
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 64; }
outdir=$(realpath -m -- "$1")
cd "$(dirname "$0")/.."
command -v buildah >/dev/null || { echo "image: buildah not found; make setup installs it" >&2; exit 3; }
mkdir -p .build-image
work=$(mktemp -d "$PWD/.build-image/image.XXXXXX")
ctr=""
# buildah's own storage lives in the work folder (vfs: no overlay mounts needed), removed afterwards.
bh() { buildah --storage-driver vfs --root "$work/storage" --runroot "$work/run" "$@"; }
cleanup() { [ -z "$ctr" ] || bh rm "$ctr" >/dev/null 2>&1 || true; rm -rf --one-file-system "$work"; }
trap cleanup EXIT

r=$work/root
scripts/runtime-root.sh "$r" tini >/dev/null
make --no-print-directory install SELFCONTAINED=1 PREFIX="$r/opt/handpose" >"$work/install.log" 2>&1 || { cat "$work/install.log" >&2; exit 3; }
chroot "$r" /usr/sbin/useradd --uid 10001 --user-group --create-home --shell /usr/sbin/nologin handpose
version=$("$r/opt/handpose/bin/handpose" --version)
out=$outdir/handpose-$version.oci.tar
ref=handpose:$version
commit=$(git rev-parse HEAD 2>/dev/null || echo unknown)
[ -z "$(git status --porcelain --untracked-files=no 2>/dev/null)" ] || commit="$commit-modified"

labels=(--label "org.opencontainers.image.title=handpose"
        --label "org.opencontainers.image.description=Hand-pose training data from clips and images; Debian 12 (minbase) with the self-contained handpose (FFmpeg 5.1 linked in)"
        --label "org.opencontainers.image.version=$version"
        --label "org.opencontainers.image.revision=$commit")
# The models as installed in the image (make setup checked them against scripts/models.sha256).
for f in "$r"/opt/handpose/share/handpose/models/*.tflite; do
  name=$(basename "$f" .tflite)
  labels+=(--label "io.handpose.model.$name.sha256=$(sha256sum "$f" | cut -d' ' -f1)")
done

ctr=$(bh from --name "handpose-build-$$" scratch)
mnt=$(bh mount "$ctr")
tar -C "$r" --numeric-owner -cf - . | tar -C "$mnt" --numeric-owner -xpf -
bh umount "$ctr" >/dev/null
bh config --entrypoint '["/usr/bin/tini", "--"]' --cmd '["handpose", "--help"]' --user 10001:10001 \
  --workingdir /home/handpose --env HOME=/home/handpose \
  --env PATH=/opt/handpose/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --stop-signal SIGTERM "${labels[@]}" "$ctr"
mkdir -p "$outdir"
rm -f "$out.partial"
bh commit --quiet --format oci --disable-compression=false "$ctr" "oci-archive:$out.partial:$ref" >/dev/null
mv "$out.partial" "$out"
echo "image: $out ($ref, $(du -m "$out" | cut -f1) MB, layers gzip-compressed; unpacked $(du -sm "$r" | cut -f1) MB: Debian minbase and tini $(du -sm --exclude=opt "$r" | cut -f1) MB, /opt/handpose $(du -sm "$r/opt/handpose" | cut -f1) MB)"
