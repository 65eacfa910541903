#!/usr/bin/env bash
# A local Python environment with the official TFLite interpreter (ai-edge-litert) and NumPy,
# used only by parity tests and benchmarks as the reference, and Pillow, which writes the JPEG and PNG
# stills of the decode sweep test (libjpeg-turbo's encoder, as cameras and editors use), and jsonschema,
# which checks real keypoint files against Keypoints/keypoints.schema.json, kubernetes-validate (its
# schemas bundled, no cluster needed) for deploy/kubernetes, and pose-format with OpenCV, which read and
# draw the .pose files `extract --format pose` writes, and Selenium, which drives Chromium through the review
# page in ReviewBrowserTests, and wheel, whose `wheel pack` makes the wheel (make wheel). Never imported by
# handpose itself.
set -euo pipefail
venv=${1:-.venv}
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c 'import ai_edge_litert, numpy, PIL, jsonschema, kubernetes_validate, pose_format, cv2, selenium, wheel' 2>/dev/null; then
  echo "setup: $venv already has ai-edge-litert, numpy, Pillow, jsonschema, kubernetes-validate, pose-format, OpenCV, Selenium and wheel; nothing to do."
  exit 0
fi
[ -x "$venv/bin/python" ] || python3 -m venv "$venv" || { echo "setup: cannot create $venv (is python3-venv installed?)" >&2; exit 1; }
"$venv/bin/pip" install --quiet --disable-pip-version-check "ai-edge-litert==2.3.0" "numpy<3" "pillow==11.3.0" "jsonschema==4.23.0" "kubernetes-validate==1.37.0" \
  "pose-format==0.15.0" "opencv-python-headless==5.0.0.93" "selenium==4.27.1" \
  "wheel==0.45.1"
echo "setup: $venv ready (ai-edge-litert, numpy, Pillow, jsonschema, kubernetes-validate, pose-format, OpenCV, Selenium, wheel)"
