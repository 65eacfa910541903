# handpose: `make setup` then `make test`. `make run` does the main job on Samples/.
SHELL := /bin/bash
SWIFT ?= swift
VENV  ?= .venv
PY    := $(VENV)/bin/python

# One release build for every x86-64 CPU: the kernels are compiled once per instruction set
# (baseline, AVX2/FMA, AVX-512; see Package.swift) and chosen at run time from what the CPU reports.
# HANDPOSE_MAX_ISA=baseline|avx2|avx512 caps the choice.
RELEASE := -c release
BIN = $(shell $(SWIFT) build $(RELEASE) --show-bin-path)/handpose

.PHONY: static-deps roots selfcontained wheel pytest torch-venv setup packages models venv tasks-venv holistic-venv parity-holistic bench-holistic bench-long parity-body bench-body build test run bench bench-annotations bench-setup parity fuzz fuzz-smoke clean install image dist bench-complete

setup: packages models venv tasks-venv holistic-venv torch-venv static-deps roots

packages:
	@scripts/setup-packages.sh

# What the self-contained binary links (make selfcontained) and the bare Debian roots that make image and the
# distribution tests unpack, built once here rather than inside the first test that needs them: FFmpeg and the
# other C libraries from Debian's source packages (3-4 minutes on two cores; kept until Debian updates one),
# and a Debian 12 root with no extra package (the dist tarball's test), with tini (make image) and with
# python3 and python3-venv on Debian 12 and 13 (the wheel's test), each a tarball kept for the ISO week
# (scripts/runtime-root.sh). Both need root; without it the tests that use them skip.
static-deps: packages
	@if [ "$$(id -u)" -ne 0 ]; then echo "setup: not root: the static libraries are not built (the distribution tests skip)"; \
	else scripts/build-static-deps.sh >/dev/null && echo "setup: the self-contained binary's static libraries are built (.build-static-deps)"; fi

roots: packages
	@if [ "$$(id -u)" -ne 0 ]; then echo "setup: not root: no Debian roots are prepared (the distribution tests skip)"; else \
	  scripts/runtime-root.sh --prepare && scripts/runtime-root.sh --prepare tini && scripts/runtime-root.sh --prepare python3 python3-venv && \
	  HANDPOSE_DEBIAN_SUITE=trixie scripts/runtime-root.sh --prepare python3 python3-venv; fi

models:
	@scripts/setup-models.sh

# The official TFLite interpreter, for parity tests of our engine (tests skip without it).
venv:
	@scripts/setup-venv.sh $(VENV)

build:
	$(SWIFT) build $(RELEASE)

# Release mode: model-level tests run the real networks, which debug builds make far slower.
# As root, the self-contained binary that the distribution tests ship (make dist, image, wheel) is built first,
# as swift test builds its own binary before the suite runs.
test:
	@if [ "$$(id -u)" -eq 0 ]; then $(MAKE) --no-print-directory selfcontained >/dev/null || \
	  echo "test: make selfcontained failed (above); the distribution tests will fail and say why" >&2; fi
	$(SWIFT) test $(RELEASE)
	$(MAKE) --no-print-directory fuzz-smoke
	$(MAKE) --no-print-directory pytest

# The Python package's tests (python/tests) with the binary swift test built, on Samples/ (and the corpus
# where ../shared is present), in .venv-torch; -rs prints why a test was skipped.
pytest: torch-venv
	HANDPOSE_BINARY=$(BIN) HANDPOSE_MODELS=$(CURDIR)/Models $(TORCH_VENV)/bin/python -m pytest -q -rs -p no:cacheprovider python/tests

# What the Python package's users have: NumPy, and PyTorch for handpose.torch (PyPI's torch wheel, which brings
# its CUDA libraries: 5.4 GB, 90 s here), with pytest; its own environment, as .venv's NumPy is pinned for others.
TORCH_VENV ?= .venv-torch
torch-venv:
	@$(TORCH_VENV)/bin/python -c 'import torch, numpy, pytest' 2>/dev/null || { \
	  { [ -x $(TORCH_VENV)/bin/python ] || python3 -m venv $(TORCH_VENV); } && \
	  $(TORCH_VENV)/bin/pip install --quiet --disable-pip-version-check "torch==2.15.0" "numpy<3" "pytest==8.3.4"; }

# The main job on Samples/: keypoints, a validation report, training arrays, accuracy against truth.
run: build
	$(BIN) extract Samples -r -o out/keypoints
	$(BIN) validate Samples/annotations.csv --window 15 --fps 15 | tee out/validation.txt
	$(BIN) export actions Samples/annotations.csv --keypoints out/keypoints -o out/actions --overwrite \
	  --fps 15 --window 15 --split train=0.75,val=0.25 --seed 1 --augment flip,rotate=10 --copies 1 --flip-labels swipe_left:swipe_right
	$(BIN) export poses Samples/poses --keypoints out/keypoints/poses -o out/poses --overwrite
	$(BIN) compare out/keypoints Samples | tee out/accuracy.txt
	$(BIN) report out/actions --keypoints out/keypoints | tee out/report.txt
	@echo "results: out/keypoints (keypoint files), out/validation.txt, out/actions and out/poses (NumPy arrays), out/accuracy.txt, out/report.txt and out/actions/report.png"

# Benchmarks, not tests, each beside the reference a user runs today, in the same run: our engine
# against XNNPACK (ai-edge-litert 2.3.0, in .venv) per model; extraction against the newest MediaPipe's
# HandLandmarker (.venv-tasks) in a process pool with a worker per core and in one process, with
# frames/s, CPU time per frame and peak memory of each, and handpose's time split by stage. Then each
# model's fused blocks against the same plan unfused (equal outputs), on one thread and on every core.
bench: build bench-setup parity
	$(BIN) probe --cpu
	$(BIN) bench kernels
	$(BIN) bench models --runs 30 --rounds 5 --reference $(PY)
	for m in palm_detection_full hand_landmark_full palm_detection_lite hand_landmark_lite; do \
	  for t in 1 $$(nproc); do $(BIN) bench profile Models/$$m.tflite --threads $$t --against-unfused --runs 300 || exit 1; done; done
	@if [ -d ../shared/corpus/clips ]; then $(BIN) bench extract ../shared/corpus/clips --reference $(TASKS_PY) --rounds 3 --profile && \
	  $(BIN) bench decode ../shared/corpus/clips/mps_typing_laptop.mp4 ../shared/corpus/clips/mps_thumbs_up.mp4; \
	else echo "bench extract and decode skipped: ../shared/corpus/clips is absent"; fi
	$(MAKE) bench-complete
	$(MAKE) bench-body
	$(MAKE) bench-holistic

# The corpus clips five times over (copies, so each is its own input), for plain hands and for Holistic: runs
# five times as long, in which each side's start-up (handpose about 0.2 s a process, a Python with MediaPipe
# about 0.9 s) weighs a fifth as much as in make bench's runs of eight seconds. One round each, about 15 minutes.
BENCH_LONG_COPIES ?= 5
bench-long: build tasks-venv holistic-venv
	@if [ -d $(CORPUS)/clips ]; then d=$$(mktemp -d) && trap 'rm -rf "$$d"' EXIT && \
	  for k in $$(seq $(BENCH_LONG_COPIES)); do for f in $(CORPUS)/clips/*; do cp "$$f" "$$d/r$$k-$$(basename "$$f")"; done; done && \
	  $(BIN) bench extract "$$d" --reference $(TASKS_PY) --rounds 1 && \
	  $(BIN) bench holistic "$$d" --reference $(HOLISTIC_VENV)/bin --rounds 1; \
	else echo "bench-long skipped: $(CORPUS)/clips is absent"; fi

# extract --body against MediaPipe's HandLandmarker and PoseLandmarker, both run on every frame as a user of
# Tasks runs them for hands and body (README, "Bodies"): frames/s, CPU per frame and peak memory.
bench-body: build tasks-venv
	@if [ -d ../shared/corpus/clips ]; then $(BIN) bench extract ../shared/corpus/clips --reference $(TASKS_PY) --rounds 3 --body; \
	else echo "bench-body skipped: ../shared/corpus/clips is absent"; fi

# extract --complete against plain extraction (README, "`--complete`"): on synthetic clips in which a
# live tracker loses the hand (made once, the same bytes for the same seed), against their truth; then on
# the shared corpus, against MediaPipe's stored outputs.
SYNTH_LOSSES = .build/synth-losses
bench-complete: build
	@if [ ! -f $(SYNTH_LOSSES)/annotations.csv ]; then rm -rf $(SYNTH_LOSSES) && \
	  $(BIN) synth -o $(SYNTH_LOSSES) --per-class 3 --seconds 4 --fps 30 --size 640x480 --montages 0 --poses-per-class 0 --seed 7 --losses; fi
	$(BIN) bench complete $(SYNTH_LOSSES)/actions
	@if [ -d $(CORPUS)/clips ]; then $(BIN) bench complete $(CORPUS)/clips --reference $(CORPUS)/reference_tasks; \
	else echo "bench complete on the corpus skipped: $(CORPUS)/clips is absent"; fi

# Peak memory and time of validate on a million segments in one file, in each annotation format
# (README, "Annotations from ELAN and Label Studio"); the files are generated and removed.
bench-annotations: build
	$(PY) scripts/annotation_memory.py $(BIN) Samples/actions/grab_0.mp4 --segments 1000000

# Both modes against both MediaPipe references over the shared corpus (../shared/corpus, see its README):
# the default mode should match MediaPipe Tasks 1.2.2 (reference_tasks/), --legacy the legacy solution
# 0.10.14 (reference/). Prints compare's overall line for each of the four pairs, then, where make
# bench-setup has installed MediaPipe, each MediaPipe against itself on slightly changed frames.
CORPUS ?= ../shared/corpus
parity: build
	@set -eo pipefail; if [ ! -d $(CORPUS)/clips ]; then echo "parity skipped: $(CORPUS)/clips is absent"; exit 0; fi; \
	$(BIN) extract $(CORPUS)/clips $(CORPUS)/images -o out/parity/default --overwrite --quiet; \
	$(BIN) extract $(CORPUS)/clips $(CORPUS)/images -o out/parity/legacy --legacy --overwrite --quiet; \
	for mode in default legacy; do for ref in reference_tasks reference; do \
	  printf "%-9s vs %-16s " $$mode $$ref; \
	  $(BIN) compare out/parity/$$mode $(CORPUS)/$$ref | grep '^overall' | sed 's/^overall *//'; \
	done; done; \
	floor() { \
	  if ! $$1 -c 'import mediapipe' 2>/dev/null; then echo "$$2 skipped: $$1 has no MediaPipe (make bench-setup installs it)"; return; fi; \
	  for noise in 0 0.01; do \
	    $$1 scripts/mediapipe_keypoints.py $$2 --models Models --out out/parity/$$2-$$noise --noise $$noise \
	      $(CORPUS)/clips/* $(CORPUS)/images/* 2>out/parity/$$2-$$noise.log || { cat out/parity/$$2-$$noise.log; exit 1; }; \
	    printf "%-9s vs %-16s " $$2$$([ $$noise = 0 ] && echo "" || echo +1%) $$3; \
	    $(BIN) compare out/parity/$$2-$$noise $(CORPUS)/$$3 | grep '^overall' | sed 's/^overall *//'; \
	  done; \
	}; \
	floor $(TASKS_PY) tasks reference_tasks; floor $(PY) legacy reference; \
	echo "columns: frames, count agreement, hands, chirality agreement, mean and p95 deviation (palm sizes), jitter, PCK@0.05/0.1/0.2, only A, only B, twice A, twice B"; \
	echo "tasks, legacy: MediaPipe run here against its stored output (should be 100% and 0.0000: the same MediaPipe)"; \
	echo "tasks+1%, legacy+1%: the same with 1 added to 1% of the pixels of each frame: the floor under any comparison with MediaPipe"; \
	$(MAKE) --no-print-directory parity-body

# extract --body against MediaPipe's PoseLandmarker (the release in .venv-tasks, the same model files), run
# here on the corpus, and MediaPipe against itself with 1 added to 1% of the pixels (its floor), for five
# sets of changed pixels (--seed 0-4: on clips where the person comes and goes, one draw of the floor is not
# its spread); over every file, the clips in which MediaPipe keeps its person in every frame, and the
# stills (README, "Bodies").
BODY_STEADY = dg_clicks.gif dg_drag_drop_1.gif dg_swipe_left_right.gif mps_thumbs_up.mp4 nvgesture_two_hands.avi slp_sign_short.mp4
BODY_SEEDS = 0 1 2 3 4
parity-body: build
	@set -eo pipefail; if [ ! -d $(CORPUS)/clips ]; then echo "parity-body skipped: $(CORPUS)/clips is absent"; exit 0; fi; \
	if ! $(TASKS_PY) -c 'import mediapipe' 2>/dev/null; then echo "parity-body skipped: $(TASKS_PY) has no MediaPipe (make setup installs it)"; exit 0; fi; \
	$(BIN) extract $(CORPUS)/clips $(CORPUS)/images -o out/parity/body --body --overwrite --quiet; \
	mp() { rm -rf out/parity/$$1; $(TASKS_PY) scripts/mediapipe_keypoints.py pose --models Models --out out/parity/$$1 $$2 \
	    $(CORPUS)/clips/* $(CORPUS)/images/* 2>out/parity/$$1.log || { cat out/parity/$$1.log; exit 1; }; }; \
	mp pose-0 "--noise 0"; for seed in $(BODY_SEEDS); do mp pose-0.01-s$$seed "--noise 0.01 --seed $$seed"; done; \
	steady=$$(for c in $(BODY_STEADY); do printf "%s.hands.json " $$c; done); \
	stills=$$(cd out/parity/pose-0 && ls | grep -E '\.(jpg|jpeg|png)\.hands\.json$$' | tr '\n' ' '); \
	row() { printf "%-32s " "$$1"; $(PY) scripts/pose_compare.py $$2 out/parity/pose-0 $$3 | grep '^overall' | sed 's/^overall *//'; }; \
	for part in "every file|" "steady clips|--only $$steady" "stills|--only $$stills"; do \
	  name=$${part%%|*}; only=$${part#*|}; \
	  row "body, $$name" out/parity/body "$$only"; \
	  for seed in $(BODY_SEEDS); do row "floor (seed $$seed), $$name" out/parity/pose-0.01-s$$seed "$$only"; done; \
	done; \
	echo "columns: frames, count agreement, bodies, mean and p95 deviation of the 33 landmarks (torso sizes), the same over the upper body (0-24)"; \
	echo "body: handpose extract --body against MediaPipe's PoseLandmarker; floor: MediaPipe with 1 added to 1% of the pixels (which pixels: the seed) against itself"

# MediaPipe 0.10.14 (the legacy solution) in .venv; the newest MediaPipe release (Tasks only; same model
# files as 1.2.2, whose output the shared corpus stores) in .venv-tasks, as the two cannot share one
# environment. bench extract names the release it ran.
TASKS_VENV ?= .venv-tasks
TASKS_PY := $(TASKS_VENV)/bin/python
MEDIAPIPE_TASKS ?= 1.2.3
bench-setup: venv tasks-venv
	@$(PY) -c 'import mediapipe, cv2' 2>/dev/null || $(VENV)/bin/pip install --quiet --disable-pip-version-check "mediapipe==0.10.14" "opencv-python-headless==5.0.0.93"

# The newest MediaPipe in .venv-tasks: the reference BodyParityTests and make parity run (part of make setup).
tasks-venv:
	@$(TASKS_PY) -c 'import mediapipe, cv2, sys; sys.exit(mediapipe.__version__ != "$(MEDIAPIPE_TASKS)")' 2>/dev/null || { \
	  { [ -x $(TASKS_PY) ] || python3 -m venv $(TASKS_VENV); } && \
	  $(TASKS_VENV)/bin/pip install --quiet --disable-pip-version-check "mediapipe==$(MEDIAPIPE_TASKS)" "opencv-contrib-python==5.0.0.93" "numpy<3"; }

# extract --holistic against pose-format's video_to_pose (MediaPipe 0.10.14 Holistic, .venv-holistic) on every
# corpus clip, and video_to_pose against itself with 1 added to 1% of the pixels for three sets of changed
# pixels (its floor: one draw is not its spread); per component, frames present in one and not the other and
# the deviation in shoulder widths (scripts/holistic_compare.py; docs/holistic.md). REFINE_FACE=1: both with the
# refined face (--refine-face; video_to_pose's refine_face_landmarks=true, 478 points).
HOLISTIC_SEEDS = 0 1 2
HOLISTIC_REFINE = $(if $(filter 1 yes true,$(REFINE_FACE)),--refine-face,)
parity-holistic: build holistic-venv
	@set -eo pipefail; if [ ! -d $(CORPUS)/clips ]; then echo "parity-holistic skipped: $(CORPUS)/clips is absent"; exit 0; fi; \
	rm -rf out/parity/holistic out/parity/video_to_pose*; \
	$(BIN) extract $(CORPUS)/clips -o out/parity/holistic --holistic $(HOLISTIC_REFINE) --format pose --overwrite --quiet; \
	$(HOLISTIC_PY) scripts/holistic_reference.py $(HOLISTIC_REFINE) --out out/parity/video_to_pose $(CORPUS)/clips/* 2>/dev/null; \
	echo "== handpose extract --holistic against video_to_pose"; \
	$(PY) scripts/holistic_compare.py out/parity/holistic out/parity/video_to_pose; \
	for seed in $(HOLISTIC_SEEDS); do \
	  $(HOLISTIC_PY) scripts/holistic_reference.py $(HOLISTIC_REFINE) --out out/parity/video_to_pose-s$$seed --noise 0.01 --seed $$seed $(CORPUS)/clips/* 2>/dev/null; \
	  echo "== floor: video_to_pose with 1 added to 1% of the pixels (seed $$seed) against video_to_pose"; \
	  $(PY) scripts/holistic_compare.py out/parity/video_to_pose-s$$seed out/parity/video_to_pose | grep -v '^note'; \
	done

# extract --holistic beside pose-format's videos_to_poses (a worker per core) and video_to_pose (once per clip),
# MediaPipe 0.10.14's Holistic, over the corpus clips videos_to_poses takes, in the same run (README, "Holistic");
# then where handpose's frame goes (the pose, the hands, the face; one job, one engine thread).
# REFINE_FACE=1: both with the refined face.
bench-holistic: build holistic-venv
	@if [ -d $(CORPUS)/clips ]; then $(BIN) bench holistic $(CORPUS)/clips --reference $(HOLISTIC_VENV)/bin --rounds 2 --profile $(HOLISTIC_REFINE); \
	else echo "bench-holistic skipped: $(CORPUS)/clips is absent"; fi

# pose-format's video_to_pose on MediaPipe 0.10.14's legacy Holistic, the reference `extract --holistic`
# is measured against (HolisticParityTests, make parity-holistic, make bench-holistic): its own environment,
# since MediaPipe 0.10.14 needs NumPy 1 and .venv has NumPy 2.
HOLISTIC_VENV ?= .venv-holistic
HOLISTIC_PY := $(HOLISTIC_VENV)/bin/python
holistic-venv:
	@$(HOLISTIC_PY) -c 'import mediapipe, pose_format, sys; sys.exit(mediapipe.__version__ != "0.10.14")' 2>/dev/null || { \
	  { [ -x $(HOLISTIC_PY) ] || python3 -m venv $(HOLISTIC_VENV); } && \
	  $(HOLISTIC_VENV)/bin/pip install --quiet --disable-pip-version-check "mediapipe==0.10.14" "numpy==1.26.4" \
	    "opencv-contrib-python==4.11.0.86" "pose-format==0.15.0"; }

# libFuzzer: the annotation parsers, the keypoint-file reader and VideoReader over mutated media files
# (with guard pages after FFmpeg's buffers), each seeded from Fuzz/corpus/<target>/. Each target runs for
# FUZZ_SECONDS (default 600) or FUZZ_RUNS executions in all, whichever ends first; any crash stops make.
# Fork mode (-fork=FUZZ_JOBS): the fuzzing runs in child processes that libFuzzer restarts, summing their
# executions, so the memory FoundationXML leaks (one CFError per libxml2 error) is given back and a run of
# ten million files ends; e.g. make fuzz FUZZ_TARGETS=AnnotationFilesFuzz FUZZ_RUNS=10000000 FUZZ_SECONDS=86400.
FUZZ_SECONDS ?= 600
FUZZ_RUNS ?= -1
FUZZ_JOBS ?= 1
FUZZ_TARGETS ?= AnnotationsFuzz AnnotationFilesFuzz ReviewRequestFuzz KeypointsFuzz VideoReaderFuzz
# Swift's own crash backtracer would run inside AddressSanitizer's signal handling and hide the crash;
# FoundationXML's leak of one CFError per libxml2 error is not ours (Fuzz/lsan.supp).
FUZZ_ENV = SWIFT_BACKTRACE=enable=no LSAN_OPTIONS=suppressions=$(CURDIR)/Fuzz/lsan.supp
fuzz:
	cd Fuzz && $(SWIFT) build -c release
	@for t in $(FUZZ_TARGETS); do \
	  mkdir -p Fuzz/.work/$$t && cp -n Fuzz/corpus/$$t/* Fuzz/.work/$$t/ && \
	  echo "fuzz: $$t for $(FUZZ_SECONDS)s" && \
	  $(FUZZ_ENV) Fuzz/.build/release/$$t Fuzz/.work/$$t -fork=$(FUZZ_JOBS) -max_total_time=$(FUZZ_SECONDS) -runs=$(FUZZ_RUNS) -max_len=8192 \
	    -timeout=20 -rss_limit_mb=4096 -artifact_prefix=Fuzz/.work/$$t- > Fuzz/.work/$$t.log 2>&1; \
	  status=$$?; grep -E "^#[0-9]+:" Fuzz/.work/$$t.log | tail -1; grep -E "fuzzed for|ERROR|SUMMARY|exiting" Fuzz/.work/$$t.log; \
	  if [ $$status -ne 0 ]; then grep -A30 "ERROR" Fuzz/.work/$$t.log | head -60; exit 1; fi; \
	done

# Part of make test: every fuzz target from its committed seeds only (not the growing Fuzz/.work corpus, so a
# CI run is the same run each time: seed 1), for FUZZ_SMOKE_SECONDS each; any crash, leak or trap fails it.
FUZZ_SMOKE_SECONDS ?= 30
fuzz-smoke:
	cd Fuzz && $(SWIFT) build -c release
	@for t in $(FUZZ_TARGETS); do \
	  rm -rf Fuzz/.smoke/$$t && mkdir -p Fuzz/.smoke/$$t && cp Fuzz/corpus/$$t/* Fuzz/.smoke/$$t/ && \
	  echo "fuzz-smoke: $$t for $(FUZZ_SMOKE_SECONDS)s" && \
	  $(FUZZ_ENV) Fuzz/.build/release/$$t Fuzz/.smoke/$$t -seed=1 -max_total_time=$(FUZZ_SMOKE_SECONDS) -max_len=8192 \
	    -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix=Fuzz/.smoke/$$t- > Fuzz/.smoke/$$t.log 2>&1; \
	  status=$$?; grep -E "^stat::number_of_executed_units|ERROR|SUMMARY" Fuzz/.smoke/$$t.log; \
	  if [ $$status -ne 0 ]; then grep -A30 "ERROR" Fuzz/.smoke/$$t.log | head -60; exit 1; fi; \
	done

# The self-contained binary (docs/static-binary.md): FFmpeg, libjpeg-turbo, libxml2, dav1d, x264, zlib (built
# from Debian 12's source packages by scripts/build-static-deps.sh, cached in .build-static-deps), the Swift
# runtime and the C++ runtime linked in; it needs only glibc 2.34 or later, which the build checks
# (scripts/check-selfcontained.sh). Prints its path. make wheel, make dist and make image ship it.
selfcontained:
	@scripts/build-selfcontained.sh

# out/handpose-<version>-py3-none-manylinux_2_34_x86_64.whl: the self-contained binary, the models and the
# Python package (python/handpose). SelfContainedTests installs it into bare Debian 12 and 13 roots.
wheel: models venv
	@rm -rf .build-selfcontained/wheel-tree && $(MAKE) --no-print-directory install SELFCONTAINED=1 PREFIX=$(CURDIR)/.build-selfcontained/wheel-tree >&2 && \
	  $(PY) scripts/build-wheel.py --installed .build-selfcontained/wheel-tree --out out

# An installed handpose runs from any folder and on machines without the Swift toolchain: the Swift
# runtime is linked in (--static-swift-stdlib); FFmpeg's libraries come from the system (libavformat59,
# libavcodec59, libswscale6, libavutil57 on Debian 12), as does libturbojpeg0; with SELFCONTAINED=1 it is
# the self-contained binary instead, which needs only glibc (make dist and make image install that). The binary
# runs on any x86-64 CPU (its kernels are chosen at run time), so one built on an AVX-512 login node runs
# on AVX2 nodes too. Models go to PREFIX/share/handpose/models, where
# the binary looks for them; bench's reference scripts (and the module mediapipe_bench.py imports) to
# PREFIX/share/handpose/scripts, where bench looks before ./scripts; the review page's files to
# PREFIX/share/handpose/review, where review looks; shell completions where bash, zsh and fish look.
PREFIX ?= /usr/local
BENCH_SCRIPTS = scripts/tflite_reference.py scripts/mediapipe_bench.py scripts/mediapipe_keypoints.py
STATIC_BIN = $(shell $(SWIFT) build $(RELEASE) --static-swift-stdlib --scratch-path .build-static --show-bin-path)/handpose
install: models
	@if [ -n "$(SELFCONTAINED)" ]; then scripts/build-selfcontained.sh >.build-selfcontained.path; else \
	  $(SWIFT) build $(RELEASE) --static-swift-stdlib --scratch-path .build-static --product handpose && echo "$(STATIC_BIN)" >.build-selfcontained.path; fi  # the tool alone: test support needs XCTest, which no static SDK has
	install -d "$(PREFIX)/bin" "$(PREFIX)/share/handpose/models" "$(PREFIX)/share/handpose/scripts" "$(PREFIX)/share/bash-completion/completions" \
	  "$(PREFIX)/share/zsh/site-functions" "$(PREFIX)/share/fish/vendor_completions.d"
	install -m 755 "$$(tail -1 .build-selfcontained.path)" "$(PREFIX)/bin/handpose"
	@if [ -n "$(SELFCONTAINED)" ]; then install -d "$(PREFIX)/share/handpose/licenses" && \
	  install -m 644 .build-selfcontained/licenses/* "$(PREFIX)/share/handpose/licenses/"; fi
	strip --strip-debug "$(PREFIX)/bin/handpose"  # 98 -> 80 MB; the symbol table stays, for readable crash backtraces
	install -m 644 Models/*.tflite "$(PREFIX)/share/handpose/models/"
	install -m 755 $(BENCH_SCRIPTS) "$(PREFIX)/share/handpose/scripts/"
	install -d "$(PREFIX)/share/handpose/review" && install -m 644 Sources/Review/Page/* "$(PREFIX)/share/handpose/review/"
	"$(PREFIX)/bin/handpose" --generate-completion-script bash > "$(PREFIX)/share/bash-completion/completions/handpose"
	"$(PREFIX)/bin/handpose" --generate-completion-script zsh > "$(PREFIX)/share/zsh/site-functions/_handpose"
	"$(PREFIX)/bin/handpose" --generate-completion-script fish > "$(PREFIX)/share/fish/vendor_completions.d/handpose.fish"
	@echo "installed $(PREFIX)/bin/handpose (models in $(PREFIX)/share/handpose/models, bench's scripts in $(PREFIX)/share/handpose/scripts)"

# What users run where there is no Swift toolchain (README, "Requirements"), each built here with no
# registry but Debian's mirror (make setup installs debootstrap and buildah; both need root):
# out/handpose-<version>.oci.tar, an OCI image (a minimal Debian 12 root with tini, the self-contained
# handpose and its models in /opt/handpose, tini as process 1, user handpose by default) for podman load,
# docker load or apptainer build; out/handpose-<version>-linux-x86_64.tar.gz, the installed tree of the
# self-contained binary, for any Linux with glibc 2.34. DistributionTests builds and runs both.
image: models
	@scripts/build-image.sh out

dist: models
	@scripts/build-dist.sh out

clean:
	rm -rf .build .build-static .build-selfcontained .build-selfcontained.path .build-static-deps .build-image out Fuzz/.build Fuzz/.work
