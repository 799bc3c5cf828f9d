# SPDX-License-Identifier: Apache-2.0
"""One entry point for every GPU benchmark of the series.

    python3 benchmarks/run.py --vllm-root DIR [--out-dir OUT] [--quick] [--only NAME,...]

DIR holds the fork's vllm/ (a source tree, or an unpacked `./vllm-fork bundle`).
Runs, in order, each in its own process (a crash in one does not stop the rest):

  prefill  a q=4096 chunk after 0-28K context tokens: paged_prefill_aligned on TRITON_ATTN's
           cache vs unified_attention (TRITON_ATTN without the opt-in) vs context_attention_fwd
           (ROCM_ATTN), pages 64/784/832, Qwen3.5-27B's and Llama-3.1-8B's heads
  prefill_alternatives  unified_attention with use_td, other prefill launches and in-page
           tiles (benchmarks/prototypes/) against paged_prefill_aligned, 1 or 8 sequences,
           chunks of 64-4096 tokens
  sm90_mixed_steps  patch 3's sm_90 launch against the default launch on a prefill chunk beside
           0-128 decode rows (head 256, page 832; needs an sm_90 GPU)
  replay_scheduler  the concurrency-10 steps vLLM's scheduler produced (benchmarks/scheduler_traces/),
           timed through each backend's real forward: upstream ROCM_ATTN (page 784) and TRITON_ATTN
           (page 832) vs the series' TRITON_ATTN with use_triton_paged_prefill
  num_seqs_specialization  unified_attention with and without Triton's specialization of its
           row count (patch 2): time per batch, and compiles over rows 1-256 after a warm-up
  prefix_prefill  prefix_prefill tiles: 32/32 vs 128/64 vs the chosen tiles, and the block-table
           fix's cost against the release's kernel (from the bundle's base/ folder)

Each writes JSON (with the environment) and a PNG under OUT/<name>/, the
names of the folders under benchmarks/results/ (OUT defaults to it). --quick
trims every benchmark to a few points so the whole run takes a few minutes.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))

# name -> (script, full arguments, extra arguments in --quick mode)
BENCHMARKS = {
    "prefill": (
        "kernels/bench_prefill_paged.py",
        [
            "--heads", "24/4/256,32/8/128", "--pages", "64,784,832", "--baseline-pages", "64,784,832",
            "--contexts", "0,4096,12288,28672",
        ],
        ["--heads", "24/4/256", "--pages", "784,832", "--contexts", "0,12288,28672"],
    ),  # fmt: skip
    "prefill_alternatives": (
        "kernels/bench_prefill_alternatives.py",
        [],
        ["--shapes", "24/4/256@832", "--chunks", "256,4096", "--seqs", "1", "--contexts", "12288"],
    ),
    "sm90_mixed_steps": (
        "kernels/bench_sm90_mixed_steps.py",
        [],
        ["--heads", "24/4/256", "--chunks", "4096,256", "--decodes", "0,16,64"],
    ),
    "replay_scheduler": (
        "replay_scheduler.py",
        [],
        ["--tiers", "16K-32K", "--decode-stride", "32", "--reps", "2"],
    ),
    "num_seqs_specialization": (
        "kernels/bench_num_seqs_specialization.py",
        ["--rounds", "5", "--rep-ms", "60"],
        ["--rows", "1,16,256", "--prefill-rows", "1,16", "--rounds", "2"],
    ),
    "prefix_prefill": (
        "kernels/bench_prefix_prefill_tiles.py",
        ["--configs", "32/32/32/4,128/64/32/4,128/64/64/8"],
        ["--pages", "544,832", "--rep-ms", "100"],
    ),
}
# How each script names its output-folder and vLLM-root options.
OUT_FLAG = {"prefill": "--out", "prefill_alternatives": "--out", "prefix_prefill": "--out", "sm90_mixed_steps": "--out",
            "num_seqs_specialization": "--out"}  # fmt: skip
TAKES_VLLM_ROOT = {"prefix_prefill", "replay_scheduler"}
# Where `./vllm-fork bundle` puts the release's own version of a modified file.
BASE_PREFIX_PREFILL = "base/vllm/v1/attention/ops/prefix_prefill.py"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--vllm-root", required=True)
    p.add_argument("--out-dir", default=os.path.join(HERE, "results"))
    p.add_argument("--quick", action="store_true")
    p.add_argument("--only", default=",".join(BENCHMARKS))
    args = p.parse_args()
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.abspath(args.vllm_root), env.get("PYTHONPATH")]))
    names = [n for n in args.only.split(",") if n]
    failed = []
    for i, name in enumerate(names, start=1):
        script, full, quick = BENCHMARKS[name]
        out = os.path.join(args.out_dir, name)
        os.makedirs(out, exist_ok=True)
        cmd = [sys.executable, os.path.join(HERE, script), OUT_FLAG.get(name, "--out-dir"), out]
        if name in TAKES_VLLM_ROOT:
            cmd += ["--vllm-root", args.vllm_root]
        if name == "prefix_prefill" and os.path.exists(UNFIXED_PREFIX := os.path.join(args.vllm_root, BASE_PREFIX_PREFILL)):
            # A bundle carries the release's prefix_prefill.py: time the block-table fix.
            cmd += ["--unfixed-kernel", UNFIXED_PREFIX]
        cmd += full + (quick if args.quick else [])
        print(f"[{i}/{len(names)}] {name}: {' '.join(cmd[1:])}", flush=True)
        start = time.time()
        with open(os.path.join(out, f"{name}.log"), "w") as log:
            proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            for line in proc.stdout:
                log.write(line)
                if "arn" not in line:  # progress, without the import-time warnings
                    print(f"  {name}| {line}", end="", flush=True)
            proc.wait()
        print(f"[{i}/{len(names)}] {name}: exit {proc.returncode} after {time.time() - start:.0f} s", flush=True)
        if proc.returncode != 0:
            failed.append(name)
    print("failed: " + ", ".join(failed) if failed else "all benchmarks finished")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
