#!/usr/bin/env bash
# GPU call 103 (session 36): session 35's call 98 (the issue's 32K targets,
# then its whole decode page sweep, two rounds) run on an H200 with the
# bundle of all 20 v0.33.0 patches, so the sweep's routed flag applies
# decode_grid_stays_on_unified_attention too. Carries .gpu/whl and
# .gpu/bundle-v0.33.0.tgz.
exec bash "$(dirname "$0")/../session35/call98.sh"
