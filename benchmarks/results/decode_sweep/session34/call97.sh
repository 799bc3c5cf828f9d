#!/usr/bin/env bash
# GPU call 97 (session 34): session 33's call 95 again, after call 96 (an
# H100) found its one clear outlier to be the first point the process timed:
# the variants script now times one point first and drops it, and its
# cache-write mode stands in for the serving packages the KV-cache writer's
# import reaches. Carries .gpu/whl (this time without xgrammar, which the
# tests' stand-ins replace, and with openai and openai-harmony) and
# .gpu/bundle-v0.33.0.tgz.
set -u
cd "$(dirname "$0")/../../../.."
bash benchmarks/results/decode_sweep/session33/call95.sh
