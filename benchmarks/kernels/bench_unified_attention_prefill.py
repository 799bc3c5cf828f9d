# SPDX-License-Identifier: Apache-2.0
# SPDX-FileCopyrightText: Copyright contributors to the vLLM project
"""Time unified_attention alone on prefill chunks over their cached context.

TRITON_ATTN's cache layout ([blocks, page, kv_heads, 2 * head], viewed as K
and V), bf16, random data, a shuffled block table. Times come from
triton.testing.do_bench; TFLOP/s counts causal FLOPs, 4 * head * heads *
sum(context + i + 1) over the query rows i of every chunk. Compare launches
by running it twice, with VLLM_BATCH_INVARIANT=1 (which keeps the default
launch for every batch) and without, on a fork tree (e.g. an unpacked
`./vllm-fork bundle` in TREE):

    VLLM_BATCH_INVARIANT=1 python3 benchmarks/gpu_script.py TREE \\
        benchmarks/kernels/bench_unified_attention_prefill.py --page 832 --chunks 4096 --contexts 12288

(Patch 3's message quotes vLLM's own benchmarks/attention_benchmarks instead:
the whole TRITON_ATTN forward, on main and on the branch.)
"""

import math

import torch

from vllm.triton_utils import triton
from vllm.utils.argparse_utils import FlexibleArgumentParser
from vllm.utils.torch_utils import set_random_seed
from vllm.v1.attention.ops.triton_unified_attention import unified_attention


@torch.inference_mode()
def main(args) -> None:
    set_random_seed(0)
    hq, hk, hs, page = (
        args.num_query_heads,
        args.num_kv_heads,
        args.head_size,
        args.page,
    )
    chunks = [int(v) for v in args.chunks.split(",")]
    contexts = [int(v) for v in args.contexts.split(",")]
    assert len(chunks) == len(contexts), "one --contexts entry per chunk"
    seq_lens = [q + c for q, c in zip(chunks, contexts)]
    pages = [math.ceil(s / page) for s in seq_lens]
    kv = torch.randn(sum(pages), page, hk, 2 * hs, dtype=torch.bfloat16, device="cuda")
    block_table = torch.zeros(len(chunks), max(pages), dtype=torch.int32)
    perm = torch.randperm(sum(pages), dtype=torch.int32).split(pages)
    for i, row in enumerate(perm):
        block_table[i, : len(row)] = row
    query = torch.randn(sum(chunks), hq, hs, dtype=torch.bfloat16, device="cuda")
    out = torch.empty_like(query)
    starts = torch.tensor([0] + chunks).cumsum(0, dtype=torch.int32).cuda()
    seqused_k = torch.tensor(seq_lens, dtype=torch.int32, device="cuda")
    block_table = block_table.cuda()

    def run() -> None:
        unified_attention(
            q=query,
            k=kv[..., :hs],
            v=kv[..., hs:],
            out=out,
            cu_seqlens_q=starts,
            max_seqlen_q=max(chunks),
            seqused_k=seqused_k,
            max_seqlen_k=max(seq_lens),
            softmax_scale=hs**-0.5,
            causal=True,
            window_size=(-1, -1),
            block_table=block_table,
            softcap=0,
            q_descale=None,
            k_descale=None,
            v_descale=None,
        )

    ms = triton.testing.do_bench(run, warmup=10, rep=args.rep_ms)
    flops = sum(
        4 * hs * hq * (q * c + q * (q + 1) // 2) for q, c in zip(chunks, contexts)
    )
    print(
        f"page {page}, {hq}/{hk}/{hs}, chunks {chunks} after {contexts}: "
        f"{ms:.3f} ms ({flops / (ms * 1e-3) / 1e12:.0f} TFLOP/s)"
    )


if __name__ == "__main__":
    parser = FlexibleArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", type=int, default=832)
    parser.add_argument("--num-query-heads", type=int, default=24)
    parser.add_argument("--num-kv-heads", type=int, default=4)
    parser.add_argument("--head-size", type=int, default=256)
    parser.add_argument("--chunks", default="4096", help="prefill chunk lengths")
    parser.add_argument("--contexts", default="12288", help="cached tokens per chunk")
    parser.add_argument("--rep-ms", type=int, default=500)
    main(parser.parse_args())
