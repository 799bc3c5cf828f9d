"""Run one of vLLM's benchmark scripts several times in one process (one argument set per line of a file)."""
import os, runpy, shlex, sys, traceback
sys.path.insert(0, os.path.join(os.getcwd(), "benchmarks"))
import gpu_pytest  # noqa: E402
root, script, argfile = sys.argv[1:4]
gpu_pytest.install(root)
for line in open(argfile):
    if not line.strip():
        continue
    sys.argv = [script] + shlex.split(line)
    try:
        runpy.run_path(script, run_name="__main__")
    except Exception:
        print("FAILED:", line.strip()); traceback.print_exc()
    sys.stdout.flush()
