"""`check`: static lint, applies on the pinned base, bisectable, vLLM's gate."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from vllm_fork import gitutil, proposal, upstream
from vllm_fork.bases import Base, default_base
from vllm_fork.errors import ForkError
from vllm_fork.gitutil import git
from vllm_fork.patchfile import lint_patch, parse_patch
from vllm_fork.venv import hook_python

TEST_FILE_RE = re.compile(r"^tests/(.+/)?test_[^/]+\.py$")
STALE_SERIES_HEADER = "# This series applies on GIT commit"
# Types pre-commit would give the files our patches touch.
TYPES = {".py": {"python"}, ".pyi": {"pyi", "python"}, ".rs": {"rust"}, ".proto": {"proto"}, ".png": {"png"}}


# --- (a) static ----------------------------------------------------------------


def static_problems(base: Base) -> list[str]:
    """Every problem of the queue's files, without network. The newest
    base's upstream-bound patches (upstream PRs are cut from it) must also
    be ready to go upstream: `upstream --lint`'s rules, whose path rules use
    the built tree `.fork/<base>` when there is one; and its RFC, where it has
    one, must print (`upstream --rfc`)."""
    problems = []
    newest = base.name == default_base(base.folder.parent.parent)
    if not base.series_path.is_file():
        return [f"{base.name}: no series file"]
    text = base.series_path.read_text()
    if text.startswith(STALE_SERIES_HEADER):
        problems.append(f"{base.name}/series: starts with '{STALE_SERIES_HEADER}', which git am reads as StGit")
    if text and not text.endswith("\n"):
        problems.append(f"{base.name}/series: does not end with a newline")
    names = base.series()
    seen = set()
    for name in names:
        if name in seen:
            problems.append(f"{base.name}/series: {name} is listed twice")
        seen.add(name)
        if Path(name).name != name or name in (".", ".."):
            problems.append(
                f"{base.name}/series: {name} is not a file name in patches/{base.name}/ "
                "(no folders, no ../)"
            )
            continue
        path = base.folder / name
        if not path.is_file():
            problems.append(f"{base.name}/series: {name} does not exist")
            continue
        try:
            patch = parse_patch(path)
        except ForkError as exc:
            problems.append(f"{base.name}/{exc.message}")
            continue
        problems += [f"{base.name}/{p}" for p in lint_patch(patch)]
        if newest and upstream.upstream_bound(patch):
            problems += [f"{base.name}/{p}" for p in upstream.submission_problems(patch)]
    for path in sorted(base.folder.glob("*.patch")):
        if path.name not in seen:
            problems.append(f"{base.name}/{path.name}: not listed in series (unused)")
    if newest and not problems and (base.folder / proposal.RFC_FILE).is_file():
        try:
            proposal.rfc(base.folder, [parse_patch(base.folder / name) for name in names])
        except ForkError as exc:
            problems.append(f"{base.name}/{proposal.RFC_FILE}: {exc.message}")
    return problems


# --- (c) bisectable ------------------------------------------------------------


def own_tests(files: list[str]) -> list[str]:
    return [f for f in files if TEST_FILE_RE.match(f)]


def _test_functions(source: str) -> dict[str, str]:
    """Top-level test functions of a test module: name -> source (with its
    decorators, which carry the parametrization)."""
    import ast

    tree = ast.parse(source)
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name.startswith("test"):
            start = min([d.lineno for d in node.decorator_list] + [node.lineno])
            lines = source.splitlines()[start - 1 : node.end_lineno]
            out[node.name] = "\n".join(lines)
    return out


def narrowed_tests(tree: Path, base_tag: str, tests: list[str]) -> list[str]:
    """The tests a patch brings: its new test files whole; in a test file the
    release already has (vLLM's own, often GPU-only), only the test functions
    that are new or differ from the release's (as pytest node ids). A file
    whose functions all match the release's is run whole."""
    out = []
    for name in tests:
        before = git(tree, "show", f"{base_tag}:{name}", check=False)
        path = tree / name
        if before.returncode != 0 or not path.exists():
            out.append(name)
            continue
        try:
            old, new = _test_functions(before.stdout), _test_functions(path.read_text())
        except SyntaxError:
            out.append(name)
            continue
        changed = [f for f, src in new.items() if old.get(f) != src]
        out += [f"{name}::{f}" for f in changed] if changed else [name]
    return out


def touched_modules(files: list[str]) -> list[str]:
    """vllm modules a patch touches, as import names."""
    modules = []
    for f in files:
        if f.startswith("vllm/") and f.endswith(".py"):
            name = f.removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            modules.append(name)
    return modules


def cpu_test_env() -> dict[str, str]:
    """Triton on the CPU: the interpreter, and no GPU for vLLM to look for.

    No bytecode is written: Python trusts a .pyc whose source has the size and
    the mtime second it was compiled from, and commits are checked out here
    faster than that (the venv gets the bytecode of what `import vllm` loads
    when it is built)."""
    env = dict(os.environ)
    env.update(TRITON_INTERPRET="1", CUDA_VISIBLE_DEVICES="", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


@contextlib.contextmanager
def checked_out(tree: Path, rev: str):
    """Check out `rev` in a clean tree for a while; put HEAD back afterwards."""
    dirty = gitutil.is_dirty(tree)
    if dirty:
        raise ForkError(f"refusing to check out {rev}: {tree} has uncommitted changes", dirty.rstrip())
    head = git(tree, "symbolic-ref", "-q", "--short", "HEAD", check=False).stdout.strip()
    head = head or git(tree, "rev-parse", "HEAD").stdout.strip()
    git(tree, "checkout", "-q", "--detach", rev)
    try:
        yield
    finally:
        git(tree, "checkout", "-q", head)


class StepRunner:
    """Runs bisect steps (`bisect_step.py`) in one fork tree.

    Each step imports modules from the tree as it is checked out then, so
    each needs an interpreter that has imported nothing from it. Steps run
    in children forked from one server interpreter which, after each step,
    imports the third-party modules that step loaded (torch, transformers,
    pytest; never a module of the tree), so that the next child need not.
    The server imports them with the environment the step's imports left:
    vLLM sets variables before importing torch and the rest. A step whose
    imports leave another environment than the one the server imported
    under is run again in a fresh interpreter, as is every step once the
    server has started a Python thread (fork copies only the calling thread)
    or has died. A step compiles a source file only where no earlier step
    compiled the same text at the same path (the steps share a code cache).
    """

    SOURCE = (Path(__file__).parent / "bisect_step.py").read_text()

    def __init__(self, tree: Path, python: Path, log) -> None:
        self.tree, self.python, self.log = tree, python, log
        self.tmp = tempfile.TemporaryDirectory(prefix="vllm-fork-step-")
        self.code_cache = Path(self.tmp.name) / "code"
        self.code_cache.mkdir()
        self.preloaded: set[str] = set()
        self.server: subprocess.Popen[str] | None = subprocess.Popen(
            [str(python), "-c", self.SOURCE, "serve"],
            cwd=tree,
            env=cpu_test_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )

    def __enter__(self) -> StepRunner:
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop("")
        self.tmp.cleanup()

    def _stop(self, why: str) -> None:
        if self.server is None:
            return
        if why:
            self.log(f"  bisect: each further step runs in a fresh interpreter ({why})")
        try:
            self.server.stdin.close()  # type: ignore[union-attr]
        except OSError:  # a server that died before reading all we wrote
            pass
        try:
            self.server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.server.kill()
            self.server.wait()
        self.server = None

    def _ask(self, request: dict) -> dict | None:
        assert self.server is not None
        try:
            self.server.stdin.write(json.dumps(request) + "\n")  # type: ignore[union-attr]
            self.server.stdin.flush()  # type: ignore[union-attr]
            line = self.server.stdout.readline()  # type: ignore[union-attr]
            return json.loads(line)
        except (OSError, ValueError):
            self._stop(f"the step server exited with {self.server.poll()}")
            return None

    def run(
        self, modules: list[str], tolerated: set[str], pytest_args: list[str]
    ) -> tuple[dict[str, str], subprocess.CompletedProcess[str]]:
        """(module -> error for the modules that do not import, the step's
        process). When every module imports, or fails in a way `tolerated`
        excuses, the step then runs pytest with `pytest_args`."""
        out, err, rep = (Path(self.tmp.name) / name for name in ("stdout", "stderr", "report.json"))
        request = {
            "report": str(rep),
            "modules": modules,
            "tolerated": sorted(tolerated),
            "pytest_args": pytest_args,
            "stdout": str(out),
            "stderr": str(err),
            "code_cache": str(self.code_cache),
        }
        for path in (out, err, rep):
            path.unlink(missing_ok=True)
        reply = self._ask(request) if self.server is not None else None
        report = self._report(rep)
        if reply is not None and self.preloaded and report.get("environ") != report.get("environ_before"):
            self.log("  bisect: this step's imports set another environment than the one its modules were preloaded in")
            reply = None
        if reply is None:
            rep.unlink(missing_ok=True)
            cmd = [str(self.python), "-c", self.SOURCE, "step", json.dumps(request)]
            proc = subprocess.run(cmd, cwd=self.tree, env=cpu_test_env(), capture_output=True, text=True)
            report = self._report(rep)
        else:
            proc = subprocess.CompletedProcess(request, reply["returncode"], out.read_text(), err.read_text())
        failures = report.get("failed", {"vllm": proc.stderr[-3000:]})
        if self.server is not None and "loaded" in report:
            self._preload(report)
        return failures, proc

    @staticmethod
    def _report(path: Path) -> dict:
        try:
            return json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            return {}

    def _preload(self, report: dict) -> None:
        new = [name for name in report["loaded"] if name not in self.preloaded]
        if not new:
            return
        reply = self._ask({"preload": new, "environ": report["environ"]})
        self.preloaded.update(new)
        if reply is not None and reply["threads"] > 1:
            self._stop(f"{reply['threads']} Python threads after importing what the last step imported")


@dataclass
class StepResult:
    commit: str
    subject: str
    ok: bool
    detail: str


HEAD_STEP = "(the queue's head) every test the series adds or changes"


def bisect(base: Base, tree: Path, python: Path, log, pytest_args: list[str] | None = None) -> list[StepResult]:
    """After each patch: `vllm` and the modules it touches import, and its own tests pass.
    Then, at the queue's head, every test the series adds or changes passes
    (a later patch can break an earlier one's tests without touching them):
    one more step, named HEAD_STEP.

    A touched module that does not import at the base either (e.g.
    vllm.platforms.rocm without an AMD GPU) is not held against a patch;
    a test that fails at the release too (vLLM's GPU-only tests) is not
    held against the head.
    """
    commits = git(tree, "rev-list", "--reverse", f"{base.tag}..HEAD").stdout.split()
    all_modules = touched_modules(touched_files(base, tree))
    with StepRunner(tree, python, log) as steps:
        with checked_out(tree, base.tag):
            present = [m for m in all_modules if module_path(tree, m).exists()]
            unimportable_here = set(steps.run(present, set(), [])[0])
        results = []
        for i, commit in enumerate(commits, start=1):
            with checked_out(tree, commit):
                subject = git(tree, "log", "-1", "--format=%s", commit).stdout.strip()
                log(f"[{i}/{len(commits)}] {subject}")
                files = git(tree, "diff-tree", "--no-commit-id", "--name-only", "-r", commit).stdout.split()
                tests = own_tests(files)
                args: list[str] = []
                if tests:
                    tests = narrowed_tests(tree, base.tag, tests)
                    args = ["-q", "-p", "no:cacheprovider", *tests, *(pytest_args or [])]
                    log("  $ -m pytest " + " ".join(args))
                modules = ["vllm", *touched_modules(files)]
                failures, proc = steps.run(modules, unimportable_here, args)
                real = {m: e for m, e in failures.items() if m not in unimportable_here}
                if real:
                    detail = "\n".join(f"import {m} failed: {e}" for m, e in real.items())
                    results.append(StepResult(commit, subject, False, detail))
                    continue
                if not tests:
                    results.append(StepResult(commit, subject, True, "imports; no tests of its own"))
                    continue
                # pytest reports on stdout; stderr holds the imports' warnings.
                tail = "\n".join((proc.stdout.strip() or proc.stderr.strip()).splitlines()[-15:])
                log("  " + (tail.splitlines()[-1] if tail else ""))
                ok = proc.returncode == 0
                if not ok:
                    ok, tail = only_old_failures(
                        tree, python, f"{commit}^", "before this patch", tests, proc.stdout, tail, log
                    )
                results.append(StepResult(commit, subject, ok, tail))
        tests = own_tests(touched_files(base, tree))
        if commits and tests:
            head = git(tree, "rev-parse", "HEAD").stdout.strip()
            log(f"[head] {HEAD_STEP}")
            tests = narrowed_tests(tree, base.tag, tests)
            args = ["-q", "-p", "no:cacheprovider", *tests, *(pytest_args or [])]
            log("  $ -m pytest " + " ".join(args))
            _, proc = steps.run(["vllm"], unimportable_here, args)
            tail = "\n".join((proc.stdout.strip() or proc.stderr.strip()).splitlines()[-15:])
            log("  " + (tail.splitlines()[-1] if tail else ""))
            ok = proc.returncode == 0
            if not ok:
                ok, tail = only_old_failures(tree, python, base.tag, "at the release", tests, proc.stdout, tail, log)
            results.append(StepResult(head, HEAD_STEP, ok, tail))
    return results


FAILED_RE = re.compile(r"^(?:FAILED|ERROR) (\S+)", re.MULTILINE)


def only_old_failures(
    tree: Path, python: Path, before: str, when: str, tests: list[str], out: str, tail: str, log
) -> tuple[bool, str]:
    """A patch that edits an existing test file is not blamed for that file's
    tests that already fail without it (vLLM's GPU-only tests on a CPU):
    those that fail at revision `before` too (`when`, for the report)."""
    failed = set(FAILED_RE.findall(out))
    if not failed:
        return False, tail
    with checked_out(tree, before):
        before = [t for t in tests if (tree / t.split("::")[0]).exists()]
        if not before:
            return False, tail
        cmd = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", *before]
        proc = subprocess.run(cmd, cwd=tree, env=cpu_test_env(), capture_output=True, text=True)
    new = sorted(failed - set(FAILED_RE.findall(proc.stdout)))
    if new:
        return False, "new failures:\n" + "\n".join(new) + "\n" + tail
    log(f"  all {len(failed)} failures fail {when} too")
    return True, f"{len(failed)} failing tests fail {when} too (not runnable here)\n{tail}"


def module_path(tree: Path, module: str) -> Path:
    path = tree / Path(*module.split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


# --- (d) vLLM's gate -------------------------------------------------------------


def touched_files(base: Base, tree: Path) -> list[str]:
    out = git(tree, "diff", "--name-only", "--diff-filter=d", f"{base.tag}..HEAD").stdout
    return sorted(set(out.split()))


def _hook_files(hook: dict, files: list[str]) -> list[str]:
    include = re.compile(hook.get("files", ""))
    exclude = re.compile(hook["exclude"]) if hook.get("exclude") else None
    types = set(hook.get("types", []))
    types_or = set(hook.get("types_or", []))
    chosen = []
    for f in files:
        if not include.search(f) or (exclude and exclude.search(f)):
            continue
        ftypes = TYPES.get(Path(f).suffix, set())
        if types and not types <= ftypes:
            continue
        if types_or and not types_or & ftypes:
            continue
        chosen.append(f)
    return chosen


def local_python_hooks(tree: Path, python: Path) -> list[dict]:
    """The tree's own `python tools/pre_commit/*.py` hooks, read from its pre-commit config."""
    script = (
        "import json, yaml, sys\n"
        "cfg = yaml.safe_load(open('.pre-commit-config.yaml'))\n"
        "hooks = [h for r in cfg['repos'] if r['repo'] == 'local' for h in r['hooks']]\n"
        "stages = cfg.get('default_stages', ['pre-commit'])\n"
        "json.dump([dict(h, stages=h.get('stages', stages)) for h in hooks], sys.stdout)\n"
    )
    proc = subprocess.run([str(python), "-c", script], cwd=tree, capture_output=True, text=True)
    if proc.returncode != 0:
        raise ForkError("cannot read .pre-commit-config.yaml", proc.stderr[-2000:])
    hooks = []
    for hook in json.loads(proc.stdout):
        entry = shlex.split(hook.get("entry", ""))
        if (
            hook.get("language") == "python"
            and len(entry) >= 2
            and entry[0] == "python"
            and entry[1].startswith("tools/pre_commit/")
        ):
            # The hooks a contributor's commit runs. CI-only ones (stage
            # manual alone: 0.29.0's mypy for 3.11-3.13) would multiply
            # the time for the same checks under other Python versions.
            if "pre-commit" not in hook["stages"]:
                continue
            # The entry without its `python`: gate() runs it with the hook's own.
            hook["script_args"] = [*entry[1:], *hook.get("args", [])]
            hooks.append(hook)
    return hooks


def gate(base: Base, tree: Path, python: Path, hook_envs: Path, log) -> list[str]:
    """vLLM's pre-commit on the files the series touches; one finding per failed hook.

    ruff and typos come from the fork's venv (`python`'s); each of the tree's
    own python hooks runs in its environment under `hook_envs`, as pre-commit
    runs it (venv.hook_python)."""
    files = touched_files(base, tree)
    pyfiles = [f for f in files if f.endswith(".py")]
    bindir = python.parent
    env = cpu_test_env()
    runs: list[tuple[str, list[str], dict[str, str]]] = []
    if pyfiles:
        runs.append(("ruff format", [str(bindir / "ruff"), "format", "--check", "--diff", *pyfiles], env))
        runs.append(("ruff check", [str(bindir / "ruff"), "check", "--output-format", "concise", *pyfiles], env))
    if files:
        runs.append(("typos", [str(bindir / "typos"), "--force-exclude", *files], env))
    for hook in local_python_hooks(tree, python):
        chosen = _hook_files(hook, files)
        if not chosen and not hook.get("always_run"):
            continue
        deps = hook.get("additional_dependencies", [])
        try:
            hook_py = hook_python(hook_envs, deps, log)
        except ForkError as exc:
            raise ForkError(
                f"cannot build the environment of hook {hook['id']} ({', '.join(deps)})",
                f"{exc.message}\npip needs the package index once per set of dependencies.",
            ) from exc
        # As pre-commit activates it: the hook's own tools first on PATH
        # (vLLM's mypy hook runs `mypy`).
        hook_env = {k: v for k, v in env.items() if k != "PYTHONHOME"}
        hook_env["VIRTUAL_ENV"] = str(hook_py.parent.parent)
        hook_env["PATH"] = f"{hook_py.parent}{os.pathsep}{env.get('PATH', '')}"
        argv = [str(hook_py), *hook["script_args"], *(chosen if hook.get("pass_filenames", True) else [])]
        runs.append((hook["id"], argv, hook_env))
    findings = []
    for name, argv, run_env in runs:
        start = time.monotonic()
        proc = subprocess.run(argv, cwd=tree, env=run_env, capture_output=True, text=True)
        log(f"  gate: {name} ({time.monotonic() - start:.0f} s)")
        if proc.returncode == 0:
            continue
        out = (proc.stdout + proc.stderr).strip()
        if name.startswith("mypy"):
            out = new_mypy_errors(base, tree, argv, run_env, out, log)
            if not out:
                continue
        findings.append(f"{name} failed:\n" + "\n".join("    " + line for line in out.splitlines()[-40:]))
    return findings


MYPY_ERROR_RE = re.compile(r"^(?P<file>[^:]+):(?P<line>\d+): error: (?P<msg>.*)$")


def new_mypy_errors(base: Base, tree: Path, argv: list[str], env: dict[str, str], out: str, log) -> str:
    """mypy errors the series adds: those the base also has in the same files
    (same file and message, any line) are not the series' (they come from this
    environment's stubs, not from the change)."""
    errors = [m for m in map(MYPY_ERROR_RE.match, out.splitlines()) if m]
    if not errors:
        return out
    files = sorted({m["file"] for m in errors})
    start = time.monotonic()
    with checked_out(tree, base.tag):
        present = [f for f in files if (tree / f).exists()]
        base_out = ""
        if present:
            script = [a for a in argv if not a.endswith(".py") or "tools/pre_commit" in a]
            proc = subprocess.run(script + present, cwd=tree, env=env, capture_output=True, text=True)
            base_out = proc.stdout + proc.stderr
    took = time.monotonic() - start
    log(f"  gate: mypy at the base, for errors the series did not add ({took:.0f} s)")
    known = {(m["file"], m["msg"]) for m in map(MYPY_ERROR_RE.match, base_out.splitlines()) if m}
    new = [m.group(0) for m in errors if (m["file"], m["msg"]) not in known]
    if not new:
        log(f"  gate: mypy: {len(errors)} error(s), all present at {base.tag} too")
    return "\n".join(new)


# --- (e) upstream's tests stay green -------------------------------------------------


def _module_name(path: str) -> str:
    return path.removesuffix(".py").removesuffix("/__init__").replace("/", ".")


def _imported_names(source: str) -> set[str]:
    """Every dotted name a module imports: `import a.b` gives a.b,
    `from a import b, c` gives a, a.b and a.c."""
    import ast

    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def exercises(source: str, paths: list[str]) -> list[str]:
    """The files of `paths` (vllm/a/b.py) a test module's source names: it
    imports the module (`import vllm.a.b`, `from vllm.a.b import x`,
    `from vllm.a import b`), or its text holds the module's dotted name as
    a word (`mock.patch("vllm.a.b.x")`) or the path itself."""
    names: set[str] | None = None
    hits = []
    for path in paths:
        module = _module_name(path)
        if path in source or re.search(re.escape(module) + r"(?!\w)", source):
            hits.append(path)
            continue
        if names is None:
            try:
                names = _imported_names(source)
            except SyntaxError:
                names = set()
        if any(name == module or name.startswith(module + ".") for name in names):
            hits.append(path)
    return hits


def _blobs(tree: Path, revs: list[str]) -> list[str]:
    """The text of each `rev:path`, read by one `git cat-file --batch`."""
    batch = "".join(rev + "\n" for rev in revs).encode()
    proc = subprocess.run(["git", "cat-file", "--batch"], cwd=tree, input=batch, capture_output=True, check=True)
    out, pos, texts = proc.stdout, 0, []
    for _ in revs:
        end = out.index(b"\n", pos)
        size = int(out[pos:end].split()[2])
        texts.append(out[end + 1 : end + 1 + size].decode(errors="replace"))
        pos = end + 1 + size + 1
    return texts


def upstream_tests(base: Base, tree: Path) -> dict[str, list[str]]:
    """The release's own test files that exercise the files the series
    modifies: test file -> the modified files it names.

    The rule: every `vllm/**.py` file that exists at the release and differs
    at HEAD (a package's `__init__.py` stands for the package); every
    `tests/**/test_*.py` file of the release tag (so never one the series
    adds: those are bisect's) whose source at the release names one of
    them, as `exercises` decides: an import of the module, its dotted name
    or its path. Files the series adds have no upstream tests."""
    diff = git(tree, "diff", "--name-only", "--diff-filter=M", f"{base.tag}..HEAD").stdout.split()
    modified = [f for f in diff if f.startswith("vllm/") and f.endswith(".py")]
    if not modified:
        return {}
    # Each way of naming a module spells its last part: only the files that
    # hold one of those are read (git grep at the tag).
    words = [arg for f in modified for arg in ("-e", _module_name(f).rpartition(".")[2])]
    grep = git(tree, "grep", "-l", "-z", "-F", *words, base.tag, "--", "tests", check=False).stdout
    listed = [hit.removeprefix(f"{base.tag}:") for hit in grep.split("\0")]
    names = sorted(f for f in listed if TEST_FILE_RE.match(f))
    chosen: dict[str, list[str]] = {}
    for name, source in zip(names, _blobs(tree, [f"{base.tag}:{name}" for name in names]), strict=True):
        hits = exercises(source, modified)
        if hits:
            chosen[name] = hits
    return chosen


@dataclass
class Outcome:
    """One test's outcome in one run (passed, skipped, failed or error),
    with the first line pytest gave when it did not pass."""

    state: str
    message: str = ""
    seconds: float = 0.0


# A test reported twice (a failing teardown after a passing call) keeps the worse.
RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
JUNIT_STATE = {"skipped": "skipped", "failure": "failed", "error": "error"}


def _first_line(message: str, text: str) -> str:
    """What went wrong, in a line: pytest's message, or where it has only
    "collection failure" (or nothing), the last `E   ...` line of its text
    (an import error) or else its last line (a native traceback's)."""
    if message.strip() and message != "collection failure":
        return message.strip().splitlines()[0][:300]
    lines = [line for line in text.splitlines() if line.strip()]
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]
    return (errors or lines or [message])[-1].strip()[:300]


def junit_outcomes(xml_text: str, files: list[str]) -> tuple[dict[str, Outcome], dict[str, Outcome]]:
    """From pytest's junit xml report of a run of `files`: (node id ->
    outcome, file -> outcome for each file that was not collected: an error,
    or skipped as a whole by `pytest.skip(allow_module_level=True)`)."""
    import xml.etree.ElementTree as ET

    modules = {_module_name(f): f for f in files}
    outcomes: dict[str, Outcome] = {}
    uncollected: dict[str, Outcome] = {}
    for case in ET.fromstring(xml_text).iter("testcase"):
        classname, name = case.get("classname", ""), case.get("name", "")
        state, message = "passed", ""
        for child in case:
            new = JUNIT_STATE.get(child.tag)
            if new and RANK[new] > RANK[state]:
                state = new
                message = _first_line(child.get("message") or "", child.text or "")
        if not classname:  # the name is the module's
            uncollected[modules.get(name, name)] = Outcome(state, message)
            continue
        module = max((m for m in modules if classname == m or classname.startswith(m + ".")), key=len, default="")
        if not module:
            continue
        classes = classname[len(module) + 1 :].split(".") if classname != module else []
        node = "::".join([modules[module], *classes, name])
        seconds = float(case.get("time") or 0)
        old = outcomes.get(node)
        if old is None or RANK[state] > RANK[old.state]:
            outcomes[node] = Outcome(state, message, seconds + (old.seconds if old else 0))
    return outcomes, uncollected


UPSTREAM_TIMEOUT_S = 300
# vLLM's tests/conftest.py cleans up after every test not marked
# skip_global_cleanup: it tears down torch.distributed and vLLM's parallel
# groups, runs gc.collect() and empties the GPU's caches. On the CPU the
# gc.collect() of a heap holding torch and vLLM cost 0.15 s or more a test
# (test_layernorm.py's 1,945 failing GPU tests: over 300 s, 14 s without
# it). This plugin marks every test so, and keeps the teardown of the
# parallel groups that a later test could trip over. Where
# $VLLM_FORK_ONLY_TESTS names a file, it runs only the tests (node ids,
# one a line) that file lists, and deselects the others.
UPSTREAM_PLUGIN = """\
import os
import sys

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "skip_global_cleanup: no cleanup after the test")


def pytest_collection_modifyitems(config, items):
    for item in items:
        item.add_marker(pytest.mark.skip_global_cleanup)
    if os.environ.get("VLLM_FORK_ONLY_TESTS"):
        with open(os.environ["VLLM_FORK_ONLY_TESTS"]) as f:
            only = set(f.read().splitlines())
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in only])
        items[:] = [item for item in items if item.nodeid in only]


@pytest.fixture(autouse=True)
def _vllm_fork_parallel_groups_teardown():
    yield
    parallel_state = sys.modules.get("vllm.distributed.parallel_state")
    if parallel_state is not None:
        parallel_state.destroy_model_parallel()
        parallel_state.destroy_distributed_environment()
"""


def run_tests(
    tree: Path, python: Path, files: list[str], label: str, log, only: list[str] | None = None
) -> tuple[dict[str, Outcome], dict[str, Outcome]]:
    """Run `files` (of them only the tests `only` names, if given) under
    pytest in `tree` as checked out now, on the CPU (`cpu_test_env`), each
    test at most UPSTREAM_TIMEOUT_S where the venv has pytest-timeout; their
    outcomes as `junit_outcomes` gives them."""
    with tempfile.TemporaryDirectory(prefix="vllm-fork-upstream-") as tmp:
        report = Path(tmp) / "junit.xml"
        args = Path(tmp) / "args"
        args.write_text("".join(f + "\n" for f in files))
        (Path(tmp) / "vllm_fork_upstream_plugin.py").write_text(UPSTREAM_PLUGIN)
        env = cpu_test_env()
        env["PYTHONPATH"] = os.pathsep.join(p for p in (tmp, env.get("PYTHONPATH")) if p)
        if only is not None:
            env["VLLM_FORK_ONLY_TESTS"] = str(Path(tmp) / "only")
            Path(env["VLLM_FORK_ONLY_TESTS"]).write_text("".join(test + "\n" for test in only))
        cmd = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "vllm_fork_upstream_plugin"]
        # Test ids relative to the tree, whatever config it has; tracebacks
        # as Python prints them (pytest's own cost 55 ms a failing test).
        cmd += ["--continue-on-collection-errors", "--rootdir", ".", "--tb=native"]
        cmd += ["-o", "junit_family=xunit2", f"--junitxml={report}"]
        has_timeout = subprocess.run([str(python), "-c", "import pytest_timeout"], capture_output=True).returncode == 0
        if has_timeout:
            cmd += ["--timeout", str(UPSTREAM_TIMEOUT_S)]
        start = time.monotonic()
        proc = subprocess.run([*cmd, f"@{args}"], cwd=tree, env=env, capture_output=True, text=True)
        took = time.monotonic() - start
        if not report.is_file():
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-20:])
            raise ForkError(f"pytest wrote no report {label} (exit {proc.returncode})", tail)
        outcomes, uncollected = junit_outcomes(report.read_text(), files)
    counts = {state: sum(o.state == state for o in outcomes.values()) for state in RANK}
    summary = ", ".join(f"{n} {state}" for state, n in counts.items() if n)
    files_out = f", {len(uncollected)} file(s) not collected" if uncollected else ""
    log(f"  upstream-tests: {label}: {summary or 'no tests'}{files_out} ({took:.0f} s)")
    per_file: dict[str, float] = {}
    for node, outcome in outcomes.items():
        per_file[node.split("::")[0]] = per_file.get(node.split("::")[0], 0.0) + outcome.seconds
    for name, seconds in sorted(per_file.items(), key=lambda kv: -kv[1])[:5]:
        if seconds >= 30:
            log(f"    {seconds:.0f} s in {name}")
    return outcomes, uncollected


@dataclass
class Regression:
    test: str  # pytest node id
    state: str  # on the fork: failed, error, skipped, not collected, missing
    message: str


def release_outcomes(
    base: Base, tree: Path, python: Path, files: list[str], log, cache: Path | None
) -> dict[str, Outcome]:
    """The outcomes of `files` at the release tag, from `cache` (a folder)
    where an earlier run left them for the same release commit, files, venv
    (its vllm-fork-stamp: what it was installed from) and way of running."""
    import hashlib

    stamp = python.parent.parent / "vllm-fork-stamp"
    key = [
        git(tree, "rev-parse", f"{base.tag}^{{commit}}").stdout.strip(),
        stamp.read_text() if stamp.is_file() else str(python),
        UPSTREAM_TIMEOUT_S,
        UPSTREAM_PLUGIN,
        files,
    ]
    digest = hashlib.sha256(json.dumps(key).encode()).hexdigest()[:16]
    path = cache / f"upstream-tests-{base.name}-{digest}.json" if cache else None
    if path and path.is_file():
        saved = json.loads(path.read_text())
        log(f"  upstream-tests: at {base.tag}: {len(saved)} outcomes from {path}")
        return {test: Outcome(*outcome) for test, outcome in saved.items()}
    with checked_out(tree, base.tag):
        outcomes, _ = run_tests(tree, python, files, f"at {base.tag}", log)
    if path:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({t: [o.state, o.message, o.seconds] for t, o in outcomes.items()}, indent=0))
        tmp.replace(path)
    return outcomes


def upstream_regressions(base: Base, tree: Path, python: Path, log, cache: Path | None = None) -> list[Regression]:
    """The release's tests of what the series modifies (`upstream_tests`),
    run at the release tag (or read from `cache`, see `release_outcomes`)
    and at HEAD: every test that passes at the release and does not pass
    at HEAD. At HEAD only those run: not the tests that did not pass at the
    release (vLLM's GPU tests, most of them), nor those the series adds.

    A test file the series changes runs in its release version at the
    release and its HEAD version at HEAD, compared by test id: a test it
    fails is reported, one it skips or drops is not (the series changed
    that test on purpose). In a file the series leaves alone, a test
    that is skipped or gone at HEAD is reported too."""
    chosen = upstream_tests(base, tree)
    if not chosen:
        log("  upstream-tests: the series modifies no vllm/ file that the release's tests name")
        return []
    files = list(chosen)
    log(f"  upstream-tests: {len(files)} test file(s) of {base.tag} exercise the files the series modifies")
    changed = set(git(tree, "diff", "--name-only", f"{base.tag}..HEAD", "--", "tests").stdout.split())
    before = release_outcomes(base, tree, python, files, log, cache)
    passed = sorted(test for test, outcome in before.items() if outcome.state == "passed")
    # The same files, so that HEAD imports what the release did before each
    # test (a test of test_mla_prefill_selector.py passes in the release's
    # whole run and skips alone), but only the tests that passed there.
    present = [f for f in files if (tree / f).is_file()]
    after, uncollected = run_tests(tree, python, present, "at HEAD", log, passed) if passed and present else ({}, {})
    found = []
    for test in passed:
        name = test.split("::")[0]
        now = after.get(test) or uncollected.get(name)
        if now is None:
            if name not in changed:
                found.append(Regression(test, "missing", "no such test at HEAD"))
        elif now.state == "error" and test not in after:
            found.append(Regression(test, "not collected", now.message))
        elif now.state == "skipped" and name in changed:
            continue
        elif now.state != "passed":
            found.append(Regression(test, now.state, now.message))
    return found


UPSTREAM_REMEDY = (
    "Fix the series, not the test: these are vLLM's own tests of the files the "
    "series modifies, and they pass on the release. If a PR deliberately changes "
    "the behaviour a test pins, change that test in the PR and say why in its message."
)
