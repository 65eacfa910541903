#!/usr/bin/env bash
# Installs the Debian packages handpose needs, only those missing. Works as root or with sudo.
set -euo pipefail
# ffmpeg (the command) writes the short test clips of awkward sizes and codecs for the decode sweep.
# slurm-wlm and munge: the Slurm test brings up a real one-node cluster (scripts/slurm-cluster.sh).
# qemu-user: a test runs the binary on an emulated CPU without AVX, where the baseline kernels must run.
# libturbojpeg0-dev: JPEG stills are decoded by libjpeg-turbo, as OpenCV and Pillow decode them.
# debootstrap, buildah, podman, runc: make image and make dist build a bare Debian root and an OCI image,
# and DistributionTests runs them (podman with runc: crun fails on the hybrid cgroups of these machines).
# nasm, meson, ninja-build, cmake, autoconf, automake, libtool, dpkg-dev: scripts/build-static-deps.sh builds
# FFmpeg, dav1d, x264, libjpeg-turbo, libxml2 and zlib from Debian's source packages for the self-contained
# binary (make wheel, make dist, make image).
# chromium, chromium-driver: ReviewBrowserTests drives the review page in a real, headless browser.
# libgl1, libglib2.0-0: the OpenCV that MediaPipe's wheel needs in .venv-tasks (BodyParityTests, make bench) links them.
needed=(libavformat-dev libavcodec-dev libswscale-dev libavutil-dev libturbojpeg0-dev pkg-config unzip python3-venv ffmpeg slurm-wlm munge qemu-user
        debootstrap buildah podman runc chromium chromium-driver libgl1 libglib2.0-0
        nasm meson ninja-build cmake autoconf automake libtool dpkg-dev)
missing=()
for p in "${needed[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: Debian packages already installed (${needed[*]})."
  exit 0
fi
if [ "$(id -u)" -eq 0 ]; then sudo=""; elif command -v sudo >/dev/null; then sudo="sudo"; else
  echo "setup: need root or sudo to install: ${missing[*]}" >&2; exit 1
fi
command -v apt-get >/dev/null || { echo "setup: apt-get not found; install these yourself: ${missing[*]}" >&2; exit 1; }
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
