# SPDX-License-Identifier: Apache-2.0
"""Record what vLLM's own scheduler puts in every step of serving Qwen3.5-27B (CPU).

Drives `vllm.v1.core.sched.scheduler.Scheduler` of the installed vLLM (its real
KV cache manager, chunked prefill on, prefix caching off, async scheduling off,
max_num_seqs 256) with a closed-loop request trace per context tier, feeding it
fake model outputs (one sampled token per request whose step finishes its
prompt or decodes; none for a non-final prefill chunk), and writes every
step's composition as JSON for `replay_scheduler.py` to time on a GPU:

    CUDA_VISIBLE_DEVICES= .fork/venvs/v0.33.0/bin/python benchmarks/scheduler_trace.py

Requests: per tier, prompt lengths drawn uniformly in [lo, hi) from
random.Random(f"{seed}-{tier}"), `--output-len` (512) output tokens each,
ignore_eos. Concurrency C: C requests arrive at step 0; each time one
finishes, the next arrives (it is scheduled from the following step on),
until N = max(--min-requests, C) requests have finished (N = 10 for C <= 10,
N = C above: at C >= 10 every request arrives at step 0, as in vLLM's serving benchmark with
`--num-prompts 10 --max-concurrency 10`). The same N prompts serve every
concurrency, budget and page of a tier (the first N of one draw).

Model shape: one KV cache group, FullAttentionSpec(block_size=page, 4 KV heads,
head 256, bf16), the shape of Qwen3.5-27B's full-attention layers. The GDN
(Mamba) group is left out: with prefix caching off vLLM sets
mamba_cache_mode "none", so the scheduler does no Mamba block-aligned chunk
split and a Mamba group only takes one state block per running request; with
enough blocks (below) it cannot change what is scheduled. The page (on
v0.34.0, 784 on ROCM_ATTN and 832 on TRITON_ATTN) is the KV block size; it only changes how many
blocks a request holds, so the traces of the two pages must be identical
(checked, and said in the output). KV blocks: C x pages of the longest
request + 1, so nothing is preempted (preemptions are counted; any fails the
check).

Row order of a step: decodes first, then prefill chunks, each group in the
order the scheduler scheduled them. replay_scheduler.py replays each step in
the order v0.34.0's model runner gives the backends (single-token rows first,
then by query length), which split_decodes_and_prefills relies on (TRITON_ATTN
with use_triton_paged_prefill sets reorder_batch_threshold = 1).

Checks (always run; a failure exits 1): each request's prompt is scheduled
exactly once, in contiguous chunks from 0; each request gets exactly
--output-len sampled tokens (the final prefill chunk's plus output_len - 1
decodes) and finishes; no preemption; the two pages' traces are equal.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import gzip
import json
import math
import os
import random
import statistics
import sys
import tempfile
import time

# Prompt lengths; 64-256 is the short-context tier (contexts 64-768 tokens).
TIERS = {
    "64-256": (64, 256), "4K-8K": (4096, 8192), "8K-16K": (8192, 16384), "16K-32K": (16384, 32768),
}  # fmt: skip
HQ, HK, HS = 24, 4, 256
MAX_NUM_SEQS = 256
HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "scheduler_traces")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tiers", default="4K-8K,8K-16K,16K-32K")
    p.add_argument("--concurrency", default="1,4,10,32")
    p.add_argument("--budgets", default="4096", help="max_num_batched_tokens values")
    p.add_argument("--pages", default="784,832")
    p.add_argument("--output-len", type=int, default=512)
    p.add_argument("--min-requests", type=int, default=10, help="N = max(this, C)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out-dir", default=DEFAULT_OUT)
    p.add_argument("--stats-out", default=None, help="summary JSON (default: OUT_DIR/trace_stats.json)")
    return p.parse_args(argv)


def prompts_for(tier: str, n: int, seed: int) -> list[int]:
    lo, hi = TIERS[tier]
    rng = random.Random(f"{seed}-{tier}")
    return [rng.randrange(lo, hi) for _ in range(n)]


def model_dir() -> str:
    """A local config.json with Qwen3.5-27B's full-attention shape (no download).
    The scheduler reads max_model_len and a few flags from ModelConfig; the
    architecture is a plain decoder so no HF or remote code is involved."""
    d = tempfile.mkdtemp(prefix="sched_trace_model_")
    cfg = {
        "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": HQ * HS,
        "num_attention_heads": HQ, "num_key_value_heads": HK, "head_dim": HS,
        "num_hidden_layers": 64, "intermediate_size": 17408, "vocab_size": 248320,
        "max_position_embeddings": 262144, "torch_dtype": "bfloat16",
        "rms_norm_eps": 1e-6, "rope_theta": 1e7,
    }  # fmt: skip
    with open(os.path.join(d, "config.json"), "w") as f:
        json.dump(cfg, f)
    return d


def make_scheduler(model: str, page: int, budget: int, num_blocks: int, max_model_len: int):
    import torch

    from vllm.config import (
        CacheConfig, DeviceConfig, ModelConfig, ParallelConfig, SchedulerConfig, VllmConfig,
    )  # fmt: skip
    from vllm.v1.core.sched.scheduler import Scheduler
    from vllm.v1.core.single_type_kv_cache_manager import register_all_kvcache_specs
    from vllm.v1.kv_cache_interface import FullAttentionSpec, KVCacheConfig, KVCacheGroupSpec
    from vllm.v1.structured_output import StructuredOutputManager

    model_config = ModelConfig(
        model=model, skip_tokenizer_init=True, dtype="bfloat16", seed=0, max_model_len=max_model_len
    )
    scheduler_config = SchedulerConfig(
        max_num_seqs=MAX_NUM_SEQS,
        max_num_batched_tokens=budget,
        max_model_len=max_model_len,
        enable_chunked_prefill=True,
        async_scheduling=False,
        is_encoder_decoder=False,
    )
    cache_config = CacheConfig(block_size=page, cache_dtype="auto", enable_prefix_caching=False)
    vllm_config = VllmConfig(
        scheduler_config=scheduler_config,
        model_config=model_config,
        cache_config=cache_config,
        parallel_config=ParallelConfig(),
        # No GPU here: the scheduler does not use the device.
        device_config=DeviceConfig(device="cpu"),
    )
    spec = FullAttentionSpec(block_size=page, num_kv_heads=HK, head_size=HS, dtype=torch.bfloat16)
    kv_cache_config = KVCacheConfig(
        num_blocks=num_blocks,
        kv_cache_tensors=[],
        kv_cache_groups=[KVCacheGroupSpec(["model.layers.3.self_attn.attn"], spec)],
    )
    cache_config.num_gpu_blocks = num_blocks
    register_all_kvcache_specs(vllm_config)
    return Scheduler(
        vllm_config=vllm_config,
        kv_cache_config=kv_cache_config,
        structured_output_manager=StructuredOutputManager(vllm_config),
        block_size=page,
        log_stats=False,
    )


def run_trace(model: str, tier: str, conc: int, budget: int, page: int, args) -> dict:
    from vllm.sampling_params import SamplingParams
    from vllm.v1.outputs import ModelRunnerOutput
    from vllm.v1.request import Request

    has_req_index = "req_id_to_index" in {f.name for f in dataclasses.fields(ModelRunnerOutput)}
    n = max(args.min_requests, conc)
    prompts = prompts_for(tier, n, args.seed)
    _, hi = TIERS[tier]
    max_model_len = hi + args.output_len + page
    pages_per_req = math.ceil((hi + args.output_len) / page)
    num_blocks = conc * pages_per_req + 1
    sched = make_scheduler(model, page, budget, num_blocks, max_model_len)
    params = SamplingParams(max_tokens=args.output_len, ignore_eos=True)

    requests: list[dict] = []
    free_slots = list(range(conc - 1, -1, -1))

    def arrive(step: int) -> None:
        i = len(requests)
        slot = free_slots.pop()
        # Distinct token ids per request (prefix caching is off anyway).
        tokens = [(i * 7919 + t) % 200000 + 10 for t in range(prompts[i])]
        sched.add_request(
            Request(request_id=str(i), prompt_token_ids=tokens, sampling_params=params, pooling_params=None)
        )
        requests.append({"id": i, "prompt": prompts[i], "slot": slot, "arrival_step": step})

    for _ in range(min(conc, n)):
        arrive(0)
    steps: list[list[list[int]]] = []
    outputs = collections.Counter()
    preemptions = 0
    finished: set[int] = set()
    while len(finished) < n:
        so = sched.schedule()
        if so.preempted_req_ids:
            preemptions += len(so.preempted_req_ids)
        ctx = {r.req_id: r.num_computed_tokens for r in so.scheduled_new_reqs}
        cached = so.scheduled_cached_reqs
        ctx.update(zip(cached.req_ids, cached.num_computed_tokens))
        rows_d, rows_p = [], []
        sampled = []
        for rid, q in so.num_scheduled_tokens.items():
            i = int(rid)
            c = ctx[rid]
            prompt = requests[i]["prompt"]
            is_decode = c >= prompt
            if is_decode:
                assert q == 1, (rid, q, c, prompt)
                rows_d.append([i, q, c, 1])
            else:
                rows_p.append([i, q, c, 0])
            done_prompt = c + q >= prompt
            sampled.append([1] if done_prompt else [])
            if done_prompt:
                outputs[i] += 1
        if not so.num_scheduled_tokens:
            raise RuntimeError(f"{tier} C={conc}: the scheduler scheduled nothing at step {len(steps)}")
        steps.append(rows_d + rows_p)
        req_ids = list(so.num_scheduled_tokens)
        # vLLM 0.34.0 dropped ModelRunnerOutput.req_id_to_index.
        index = {"req_id_to_index": {r: k for k, r in enumerate(req_ids)}} if has_req_index else {}
        out = ModelRunnerOutput(req_ids=req_ids, sampled_token_ids=sampled, **index)
        sched.update_from_output(so, out)
        step = len(steps)
        for rid in req_ids:
            i = int(rid)
            if i not in finished and rid not in sched.requests:
                finished.add(i)
                requests[i]["finish_step"] = step - 1
                free_slots.append(requests[i]["slot"])
                if len(requests) < n:
                    arrive(step)
    for r in requests:
        r["outputs"] = outputs[r["id"]]
    return {
        "tier": tier,
        "prompt_range": list(TIERS[tier]),
        "concurrency": conc,
        "requests_total": n,
        "max_num_batched_tokens": budget,
        "max_num_seqs": MAX_NUM_SEQS,
        "page": page,
        "num_kv_blocks": num_blocks,
        "output_len": args.output_len,
        "preemptions": preemptions,
        "row_format": ["request", "query_len", "context_len", "is_decode"],
        "row_order": "decodes first, then prefill chunks, each in the scheduler's order",
        "requests": requests,
        "steps": steps,
    }


def check(trace: dict) -> list[str]:
    """Every prompt token scheduled exactly once, in order; output_len outputs each."""
    problems = []
    done = collections.Counter()
    decodes = collections.Counter()
    for s, rows in enumerate(trace["steps"]):
        seen = set()
        for i, q, c, is_decode in rows:
            if i in seen:
                problems.append(f"step {s}: request {i} twice")
            seen.add(i)
            prompt = trace["requests"][i]["prompt"]
            if is_decode:
                decodes[i] += 1
                if c != prompt + decodes[i] - 1:
                    problems.append(f"step {s}: request {i} decode at context {c}")
            else:
                if c != done[i]:
                    problems.append(f"step {s}: request {i} chunk starts at {c}, expected {done[i]}")
                done[i] += q
    for r in trace["requests"]:
        i, prompt = r["id"], r["prompt"]
        if done[i] != prompt:
            problems.append(f"request {i}: {done[i]} prompt tokens scheduled, prompt {prompt}")
        if r["outputs"] != trace["output_len"] or decodes[i] != trace["output_len"] - 1:
            problems.append(f"request {i}: {r['outputs']} outputs, {decodes[i]} decodes")
        if "finish_step" not in r:
            problems.append(f"request {i}: never finished")
    if trace["preemptions"]:
        problems.append(f"{trace['preemptions']} preemptions")
    return problems


def stats(trace: dict) -> dict:
    steps = trace["steps"]
    kinds = collections.Counter()
    prefill_tokens = collections.Counter()
    decode_batches = []
    for rows in steps:
        nd = sum(r[3] for r in rows)
        np_ = len(rows) - nd
        ptok = sum(r[1] for r in rows if not r[3])
        if nd and np_:
            kinds["mixed"] += 1
            prefill_tokens["mixed"] += ptok
        elif nd:
            kinds["pure_decode"] += 1
        elif np_ == 1:
            kinds["single_prefill"] += 1
            prefill_tokens["single_prefill"] += ptok
        else:
            kinds["multi_prefill"] += 1
            prefill_tokens["multi_prefill"] += ptok
        if nd:
            decode_batches.append(nd)
    n = len(steps)
    total_prefill = sum(prefill_tokens.values())
    hist = collections.Counter(decode_batches)
    return {
        "steps": n,
        "step_fraction": {k: kinds[k] / n for k in ("mixed", "pure_decode", "single_prefill", "multi_prefill")},
        "step_counts": dict(kinds),
        "prefill_tokens": total_prefill,
        "prefill_token_fraction": {
            k: prefill_tokens[k] / total_prefill
            for k in ("single_prefill", "multi_prefill", "mixed")
        },
        "decode_tokens": sum(decode_batches),
        "decode_tokens_in_mixed_steps_fraction": (
            sum(sum(r[3] for r in rows) for rows in steps if any(not r[3] for r in rows))
            / max(1, sum(decode_batches))
        ),
        "decode_batch": {
            "mean": statistics.fmean(decode_batches) if decode_batches else 0,
            "median": statistics.median(decode_batches) if decode_batches else 0,
            "max": max(decode_batches, default=0),
            "histogram": {str(k): hist[k] for k in sorted(hist)},
        },
    }


def trace_name(tier: str, conc: int, budget: int, page: int) -> str:
    return f"{tier}_c{conc}_b{budget}_p{page}.json.gz"


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    import vllm

    t0 = time.time()
    os.makedirs(args.out_dir, exist_ok=True)
    model = model_dir()
    command = "CUDA_VISIBLE_DEVICES= python " + " ".join(
        [os.path.relpath(os.path.abspath(__file__), os.path.dirname(HERE))] + (argv if argv is not None else sys.argv[1:])
    )
    pages = [int(x) for x in args.pages.split(",")]
    summary = {"command": command, "vllm_version": vllm.__version__, "traces": []}
    failures = []
    for tier in args.tiers.split(","):
        for conc in (int(x) for x in args.concurrency.split(",")):
            for budget in (int(x) for x in args.budgets.split(",")):
                compositions = {}
                for page in pages:
                    trace = run_trace(model, tier, conc, budget, page, args)
                    trace.update(command=command, vllm_version=vllm.__version__)
                    problems = check(trace)
                    compositions[page] = trace["steps"]
                    st = stats(trace)
                    trace["stats"] = st
                    name = trace_name(tier, conc, budget, page)
                    with gzip.open(os.path.join(args.out_dir, name), "wt") as f:
                        json.dump(trace, f, separators=(",", ":"))
                    summary["traces"].append({
                        "file": name, "tier": tier, "concurrency": conc, "budget": budget,
                        "page": page, "requests": trace["requests_total"], "problems": problems, **st,
                    })  # fmt: skip
                    sf, pf = st["step_fraction"], st["prefill_token_fraction"]
                    print(
                        f"[{time.time() - t0:6.1f}s] {name}: {st['steps']} steps; mixed {sf['mixed']:.1%}, "
                        f"pure decode {sf['pure_decode']:.1%}, single-seq prefill {sf['single_prefill']:.1%}, "
                        f"multi-seq prefill {sf['multi_prefill']:.1%}; prefill tokens in single-seq steps "
                        f"{pf['single_prefill']:.1%}, "
                        f"mixed {pf['mixed']:.1%}, multi {pf['multi_prefill']:.1%}; decode batch "
                        f"mean {st['decode_batch']['mean']:.1f} max {st['decode_batch']['max']}"
                        + (f"; CHECK FAILED: {problems[:3]}" if problems else ""),
                        flush=True,
                    )
                    failures += [f"{name}: {p}" for p in problems]
                first = compositions[pages[0]]
                for page in pages[1:]:
                    if compositions[page] != first:
                        failures.append(f"{tier} C={conc} budget {budget}: page {page}'s steps differ from page {pages[0]}'s")
    summary["pages_identical"] = not any("steps differ" in f for f in failures)
    stats_out = args.stats_out or os.path.join(args.out_dir, "trace_stats.json")
    with open(stats_out, "w") as f:
        json.dump(summary, f, indent=1)
    print(f"wrote {len(summary['traces'])} traces to {args.out_dir}, stats to {stats_out}")
    if failures:
        print("CHECK FAILED:\n  " + "\n  ".join(failures[:20]))
        return 1
    print("check passed: every prompt scheduled exactly once, every request got "
          f"{args.output_len} outputs, no preemption, pages {pages} give identical steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
