#!/usr/bin/env python3
"""Reference runs of the official TFLite interpreter (ai-edge-litert), for parity tests and benchmarks.

  run MODEL INPUT.f32 OUTDIR    run once on raw float32 input; write OUTDIR/<i>.f32 for each output
  serve                         read one JSON request a line, {"model", "threads", "runs"}, and answer each with
                                a line {median_ms, p90_ms, times_ms} (RUNS runs with XNNPACK on THREADS threads),
                                or {"error": ...} when that model cannot be timed; each
                                model and thread count is loaded (and run 3 times) once, and every request runs it
                                once untimed first. `bench models` keeps one server for its whole measurement, so
                                that its runs and ours can alternate in short turns. Only answers go to standard
                                output: anything else printed there (a library's notes) goes to standard error.
"""
import json, os, sys, time
import numpy as np
from ai_edge_litert.interpreter import Interpreter

def load(model, threads=1):
    it = Interpreter(model_path=model, num_threads=threads)
    it.allocate_tensors()
    return it

def prepared(model, threads):
    """The interpreter on random input, run 3 times."""
    it = load(model, threads)
    d = it.get_input_details()[0]
    it.set_tensor(d["index"], np.random.default_rng(0).random(d["shape"], dtype=np.float32))
    for _ in range(3):
        it.invoke()
    return it

def timed(it, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter(); it.invoke(); times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return {"median_ms": times[len(times) // 2], "p90_ms": times[min(len(times) - 1, int(len(times) * 0.9))],
            "times_ms": times}

def main():
    cmd = sys.argv[1]
    if cmd == "run":
        model, inp, outdir = sys.argv[2:5]
        it = load(model)
        d = it.get_input_details()[0]
        x = np.fromfile(inp, dtype=np.float32).reshape(d["shape"])
        it.set_tensor(d["index"], x)
        it.invoke()
        for i, o in enumerate(it.get_output_details()):
            it.get_tensor(o["index"]).astype(np.float32).tofile(f"{outdir}/{i}.f32")
    elif cmd == "serve":
        answers = os.fdopen(os.dup(1), "w")
        os.dup2(2, 1)
        sys.stdout = sys.stderr
        loaded = {}
        for line in sys.stdin:
            try:
                request = json.loads(line)
                key = (request["model"], int(request["threads"]))
                if key not in loaded:
                    loaded[key] = prepared(*key)
                it = loaded[key]
                it.invoke()
                answer = timed(it, int(request["runs"]))
            except Exception as e:
                answer = {"error": f"{type(e).__name__}: {e}"}
            answers.write(json.dumps(answer) + "\n")
            answers.flush()
    else:
        sys.exit(f"unknown command {cmd}")

if __name__ == "__main__":
    main()
