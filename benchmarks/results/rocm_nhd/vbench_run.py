"""Run one of vLLM's benchmark scripts against an unpacked bundle (stand-ins as gpu_pytest)."""
import os, runpy, sys
sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
import gpu_pytest  # noqa: E402
root, script = sys.argv[1], sys.argv[2]
gpu_pytest.install(root)
sys.argv = [script] + sys.argv[3:]
runpy.run_path(script, run_name="__main__")
