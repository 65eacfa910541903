# handpose: `make setup` then `make test`. `make run` does the main job on Samples/.
SWIFT ?= swift
VENV  ?= .venv
PY    := $(VENV)/bin/python

# Release builds use AVX2/FMA when this CPU has both; otherwise the portable x86-64/arm64 baseline.
# HANDPOSE_FMA switches the kernels from `a + b * c` to fused multiply-add, which is a library
# call per lane on targets without FMA.
HAS_FMA := $(shell grep -qw avx2 /proc/cpuinfo 2>/dev/null && grep -qw fma /proc/cpuinfo 2>/dev/null && echo yes)
ifeq ($(HAS_FMA),yes)
  CPU_FLAGS := -Xswiftc -target-cpu -Xswiftc haswell -Xswiftc -DHANDPOSE_FMA -Xcc -mavx2 -Xcc -mfma
endif
RELEASE := -c release $(CPU_FLAGS)
BIN = $(shell $(SWIFT) build $(RELEASE) --show-bin-path)/handpose

.PHONY: setup packages models venv build test run bench clean

setup: packages models venv

packages:
	@scripts/setup-packages.sh

models:
	@scripts/setup-models.sh

# The official TFLite interpreter, for parity tests of our engine (tests skip without it).
venv:
	@scripts/setup-venv.sh $(VENV)

build:
	$(SWIFT) build $(RELEASE)

# Release mode: model-level tests run the real networks, which debug builds make far slower.
test:
	$(SWIFT) test $(RELEASE)

run: build
	$(BIN) probe Samples/*

bench: build
	$(BIN) bench models --runs 30 --reference $(PY)

clean:
	rm -rf .build out
