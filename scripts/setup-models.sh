#!/usr/bin/env bash
# Places MediaPipe's four hand models, its two pose (BlazePose) models and the four models Holistic adds
# (hand re-crop, short-range face detection, face mesh with and without attention) in Models/ from the pinned mediapipe wheel on PyPI,
# and checks each against scripts/models.sha256 (committed). Nothing under Models/ is ever committed.
set -euo pipefail
cd "$(dirname "$0")/.."
version=0.10.14
files=(palm_detection_full.tflite palm_detection_lite.tflite hand_landmark_full.tflite hand_landmark_lite.tflite
       pose_detection.tflite pose_landmark_full.tflite
       hand_recrop.tflite face_detection_short_range.tflite face_landmark.tflite face_landmark_with_attention.tflite)
sums="$PWD/scripts/models.sha256"
verify() { (cd Models && sha256sum --check --quiet --status "$sums") ; }
have_all=1
for f in "${files[@]}"; do [ -f "Models/$f" ] || have_all=0; done
if [ $have_all = 1 ] && verify; then
  echo "setup: Models/ already holds the ${#files[@]} verified models; nothing to do."
  exit 0
fi
for tool in python3 unzip sha256sum; do
  command -v "$tool" >/dev/null || { echo "setup: '$tool' is needed to fetch the models but was not found." >&2; exit 1; }
done
python3 -m pip --version >/dev/null 2>&1 || { echo "setup: pip for python3 is needed to fetch the models." >&2; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
echo "setup: downloading mediapipe==$version (wheel only, to read its models)"
# Every platform's wheel carries the same .tflite files; pin one so this works on any host.
python3 -m pip download --quiet --no-deps --only-binary=:all: \
  --platform manylinux_2_17_x86_64 --python-version 3.11 "mediapipe==$version" -d "$tmp"
wheel=$(ls "$tmp"/mediapipe-*.whl)
unzip -q -o -j "$wheel" 'mediapipe/modules/palm_detection/palm_detection_*.tflite' \
  'mediapipe/modules/hand_landmark/hand_landmark_*.tflite' 'mediapipe/modules/pose_detection/pose_detection.tflite' \
  'mediapipe/modules/pose_landmark/pose_landmark_full.tflite' 'mediapipe/modules/holistic_landmark/hand_recrop.tflite' \
  'mediapipe/modules/face_detection/face_detection_short_range.tflite' 'mediapipe/modules/face_landmark/face_landmark.tflite' \
  'mediapipe/modules/face_landmark/face_landmark_with_attention.tflite' -d "$tmp/models"
mkdir -p Models
for f in "${files[@]}"; do
  [ -f "$tmp/models/$f" ] || { echo "setup: $f is not in $wheel" >&2; exit 1; }
  expected=$(awk -v f="$f" '$2 == f {print $1}' "$sums")
  actual=$(sha256sum "$tmp/models/$f" | cut -d' ' -f1)
  if [ "$expected" != "$actual" ]; then
    echo "setup: SHA-256 mismatch for $f: expected $expected, got $actual. Not installed." >&2
    exit 1
  fi
  cp "$tmp/models/$f" "Models/$f.partial" && mv "Models/$f.partial" "Models/$f"
done
verify
echo "setup: placed and verified ${files[*]} in Models/"
