# SPDX-License-Identifier: Apache-2.0
"""Launch context_attention_fwd once on a batch whose block table ends at its
last valid entry (3-token query after a context ending 8 tokens before a page
boundary, page 1040 = 16 x 65), for compute-sanitizer --tool memcheck with
PYTORCH_NO_CUDA_MEMORY_CACHING=1. The table is the tail of a 512-byte
allocation, so one entry past it is outside the allocation either way.

usage: prefix_prefill_row_end.py BUNDLE_ROOT fixed|unfixed [UNFIXED_KERNEL_PY]
(benchmarks/run_gpu.sh runs both under compute-sanitizer when it is installed)
"""

import importlib.util
import os
import sys

sys.path.insert(0, os.path.abspath(sys.argv[1]))
import torch  # noqa: E402

if sys.argv[2] == "fixed":
    import vllm.v1.attention.ops.prefix_prefill as mod
else:
    spec = importlib.util.spec_from_file_location("pp_unfixed", sys.argv[3])
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)

P, HQ, HK, D = 1040, 4, 2, 32
dtype, dev = torch.float16, "cuda"
ctx, ql = [P + 5, 3 * P - 8], [40, 3]
seq = [c + q for c, q in zip(ctx, ql)]
buf = torch.empty(128, dtype=torch.int32, device=dev)
table = buf[-6:].view(2, 3)
table.copy_(torch.tensor([[0, 1, 6], [2, 3, 4]], dtype=torch.int32))
nb = 7
k_cache = torch.randn(nb, HK, D // 8, P, 8, device=dev).to(dtype)
v_cache = torch.randn(nb, HK, D, P, device=dev).to(dtype)
q = torch.randn(sum(ql), HQ, D, device=dev).to(dtype)
k = torch.randn(sum(ql), HK, D, device=dev).to(dtype)
v = torch.randn(sum(ql), HK, D, device=dev).to(dtype)
out = torch.full_like(q, float("nan"))
start = torch.tensor([0, ql[0], ql[0] + ql[1]], dtype=torch.int32, device=dev)
seq_t = torch.tensor(seq, dtype=torch.int32, device=dev)
one = torch.tensor(1.0, device=dev)
mod.context_attention_fwd(
    q,
    k,
    v,
    out,
    "auto",
    k_cache,
    v_cache,
    table,
    start,
    seq_t,
    max(seq),
    max(ql),
    one,
    one,
)
torch.cuda.synchronize()
print(f"{sys.argv[2]}: launched, output has NaN: {bool(out.isnan().any())}", flush=True)
