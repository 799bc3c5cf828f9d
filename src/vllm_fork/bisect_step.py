"""One bisect step in a fork tree: import modules, then run pytest.

Runs in the fork's venv as `python -c <this file's text> ...` with the tree
as its working directory (so `sys.path[0]` is the tree, as for any
`python -c`); standard library only. Two ways to run it:

    step REQUEST      one step in this interpreter, then exit
    serve             read one JSON request per line on stdin; `preload`
                      requests import modules here, every other request is
                      a step run in a forked child; one JSON reply per line

A step's request: `report` (file), `modules` (imported in this order),
`tolerated` (modules whose import failure does not stop the tests),
`pytest_args` (none: imports only), `code_cache` (a directory the steps of
one bisect share: each source file is compiled once per content, see
`_compile_each_source_once`). The report holds the modules that failed
to import, the environment before and after the imports, and, once pytest
has run, every module loaded from outside the working directory: what the
server may import for the next step's child. A served step's output goes to
the request's `stdout` and `stderr` files.
"""

import importlib
import json
import os
import sys


def _outside(module, root):
    path = getattr(module, "__file__", None)
    if not isinstance(path, str) or not os.path.isabs(path):
        return False
    path = os.path.realpath(path)
    return os.path.commonpath([path, root]) != root


def _compile_each_source_once(cache_dir):
    """Python modules without bytecode (the tree's: steps write none, see
    cpu_test_env) are compiled from source by every step, about 1 s of each
    for vLLM's. Here a module's code is kept in `cache_dir` under the hash of
    its path and its source, and a later step that imports the same source
    from the same path loads it instead of compiling: an edited file is
    another key, so no step runs code compiled from other source."""
    import hashlib
    import marshal
    from importlib import machinery

    class Loader(machinery.SourceFileLoader):
        def source_to_code(self, data, path, *, _optimize=-1):
            key = hashlib.sha256(os.fsencode(path) + b"\0" + data).hexdigest()
            cached = os.path.join(cache_dir, key)
            try:
                with open(cached, "rb") as f:
                    return marshal.loads(f.read())
            except (OSError, EOFError, ValueError, TypeError):
                pass
            code = super().source_to_code(data, path, _optimize=_optimize)
            partial = f"{cached}.{os.getpid()}"
            try:
                with open(partial, "wb") as f:
                    f.write(marshal.dumps(code))
                os.replace(partial, cached)
            except OSError:  # a full disk costs the next step a compile, nothing more
                pass
            return code

    loaders = [
        (machinery.ExtensionFileLoader, machinery.EXTENSION_SUFFIXES),
        (Loader, machinery.SOURCE_SUFFIXES),
        (machinery.SourcelessFileLoader, machinery.BYTECODE_SUFFIXES),
    ]
    sys.path_hooks.insert(0, machinery.FileFinder.path_hook(*loaders))
    sys.path_importer_cache.clear()


def run_step(req):
    _compile_each_source_once(req["code_cache"])
    importlib.invalidate_caches()
    before = dict(os.environ)
    failed = {}
    for name in req["modules"]:
        try:
            importlib.import_module(name)
        except BaseException as exc:
            failed[name] = f"{type(exc).__name__}: {exc}"
    report = {"failed": failed, "environ_before": before, "environ": dict(os.environ)}
    with open(req["report"], "w") as f:
        json.dump(report, f)
    code = 0
    if req["pytest_args"] and not set(failed) - set(req["tolerated"]):
        import pytest

        code = int(pytest.main(req["pytest_args"]))
    root = os.path.realpath(os.getcwd())
    report["loaded"] = [name for name, m in list(sys.modules.items()) if _outside(m, root)]
    with open(req["report"], "w") as f:
        json.dump(report, f)
    return code


def _python_threads():
    # Python threads, which may hold the interpreter's locks (imports,
    # logging) when the server forks. Native threads that libraries start
    # when loaded (torch's C extension starts one) are not counted: a child
    # forked after `import torch` works, as PyTorch's DataLoader workers do.
    import threading

    return threading.active_count()


def _run_child(req):
    """Run a served step and end its child as multiprocessing ends a forked
    worker: with os._exit, so that the modules the server preloaded (torch,
    vLLM's dependencies) are not torn down one by one, about 3 s of every
    step. The exit handlers still run and the output is flushed, as at any
    interpreter's exit."""
    import atexit
    import traceback

    try:
        code = run_step(req)
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        atexit._run_exitfuncs()
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve():
    # Replies go to the original stdout; whatever the preloaded modules print
    # goes to stderr.
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    for line in sys.stdin:
        req = json.loads(line)
        if "preload" in req:
            os.environ.clear()
            os.environ.update(req["environ"])
            for name in req["preload"]:
                try:
                    importlib.import_module(name)
                except BaseException:
                    pass
            reply = {"threads": _python_threads()}
        else:
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                replies.close()
                null = os.open(os.devnull, os.O_RDONLY)
                os.dup2(null, 0)
                for fd, name in ((1, "stdout"), (2, "stderr")):
                    out = os.open(req[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                    os.dup2(out, fd)
                    os.close(out)
                _run_child(req)
            reply = {"returncode": os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve()
    else:
        sys.exit(run_step(json.loads(sys.argv[2])))
