"""Command line: vllm-fork <verb> [--base vX.Y.Z] ..."""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
from pathlib import Path
from typing import IO, NamedTuple

from vllm_fork import checks, fork, gitutil, msgrules, upstream, venv
from vllm_fork.bases import Base, default_base, find_repo_root, known_bases, load_base
from vllm_fork.errors import ForkError
from vllm_fork.patchfile import parse_patch

ROCM_BUILD_NOTE = """\
This is a Python-only build (VLLM_TARGET_DEVICE=empty). For a real ROCm build
of the same tree (not possible here, no ROCm machine):
    cd {tree} && VLLM_TARGET_DEVICE=rocm PYTORCH_ROCM_ARCH=<gfx942|gfx936|...> \\
        pip install --no-build-isolation -e .   # after requirements/rocm.txt"""


class Ctx:
    def __init__(self, args: argparse.Namespace) -> None:
        self.quiet = args.quiet
        self.root = find_repo_root(Path(args.repo).resolve() if args.repo else Path.cwd())
        self.base_name = args.base or default_base(self.root)
        self.cache = Path(args.cache or os.environ.get("VLLM_FORK_CACHE") or self.root / ".cache")

    def base(self) -> Base:
        return load_base(self.root, self.base_name)

    def log(self, message: str) -> None:
        if not self.quiet:
            print(message, file=sys.stderr, flush=True)

    def tree(self, args: argparse.Namespace, base: Base) -> Path:
        return Path(args.fork).resolve() if getattr(args, "fork", None) else fork.fork_dir(self.root, base)


def cmd_build(ctx: Ctx, args: argparse.Namespace) -> int:
    base = ctx.base()
    tree = ctx.tree(args, base)
    source = Path(args.source) if args.source else None
    fork.build_tree(base, tree, ctx.cache, ctx.log, source)
    print(f"fork tree:   {tree}  (base tag {base.tag}, {len(base.series())} patches as commits)")
    if args.no_venv:
        return 0
    vdir = venv.venv_dir(ctx.root, base)
    python = venv.ensure(base, tree, vdir, ctx.log)
    print(f"virtualenv:  {vdir}  (python {python})")
    print(f"try it:      CUDA_VISIBLE_DEVICES= {python} -c 'import vllm; print(vllm.__file__)'")
    print(ROCM_BUILD_NOTE.format(tree=tree))
    return 0


def cmd_apply(ctx: Ctx, args: argparse.Namespace) -> int:
    base = ctx.base()
    fork.apply_to_checkout(base, Path(args.target), ctx.log)
    print(f"applied {len(base.series())} patches of {base.name} onto {Path(args.target).resolve()}")
    return 0


def cmd_export(ctx: Ctx, args: argparse.Namespace) -> int:
    base = ctx.base()
    tree = ctx.tree(args, base)
    if gitutil.is_git_tree(tree):
        branch = gitutil.git(tree, "symbolic-ref", "-q", "--short", "HEAD", check=False).stdout.strip()
        if not branch:
            # An interrupted check (its bisect checks commits out) or a
            # rebase in progress: exporting would drop every later patch.
            head = gitutil.git(tree, "log", "-1", "--format=%h %s").stdout.strip()
            raise ForkError(
                f"refusing to export: {tree} has a detached HEAD ({head}), not a branch",
                f"An interrupted `check` or a rebase in progress leaves it there: finish the rebase, "
                f"or `git -C {tree} checkout main`, then export again.",
            )
    changed = fork.export(base, tree, ctx.log)
    print(f"{len(changed)} file(s) changed in patches/{base.name}/")
    return 0


def cmd_status(ctx: Ctx, args: argparse.Namespace) -> int:
    base = ctx.base()
    tree = ctx.tree(args, base)
    if not gitutil.is_git_tree(tree):
        raise ForkError(f"no fork tree at {tree}", "Run `build` first (status compares against it).")
    if args.series:
        series_file = Path(args.series).resolve()
        if not series_file.is_file():
            raise ForkError(
                f"no series file at {series_file}",
                "Pass a queue's series file, e.g. --series patches/v0.29.0/series.",
            )
        names = [
            line.split("#", 1)[0].strip()
            for line in series_file.read_text().splitlines()
            if line.split("#", 1)[0].strip()
        ]
        patches = [series_file.parent / n for n in names]
        missing = [p.name for p in patches if not p.is_file()]
        if missing:
            raise ForkError(
                f"{series_file} lists patches that do not exist: {', '.join(missing)}",
                "Fix the series file (`check --static` lists every problem).",
            )
    else:
        patches = base.patch_paths()
    results, unexported = fork.status(base, tree, patches)
    width = max([len(r.name) for r in results] + [10])
    for r in results:
        print(f"{r.state:17} {r.name:{width}}  {r.detail}".rstrip())
    if unexported:
        print("\nun-exported work in the fork tree (run `export`):")
        for item in unexported:
            print("  " + item.replace("\n", "\n    "))
    if not results:
        print(f"patches/{base.name}/ has no patches")
    return 1 if any(r.state == "conflicting" for r in results) else 0


def find_patch(base: Base, name: str) -> Path:
    """A patch file, or the one patch of the base whose file name contains `name`."""
    path = Path(name)
    if path.exists():
        return path
    matches = [p for p in base.patch_paths() if name in p.name]
    if len(matches) != 1:
        raise ForkError(
            f"no single patch of {base.name} matches {name!r}",
            "\n".join(p.name for p in (matches or base.patch_paths())),
        )
    return matches[0]


def cmd_upstream(ctx: Ctx, args: argparse.Namespace) -> int:
    from vllm_fork import proposal

    base = ctx.base()
    tree = Path(args.fork).resolve() if args.fork else None
    if args.lint or args.rfc:
        if args.patch:
            raise ForkError(f"{'--lint' if args.lint else '--rfc'} takes no patch", "It covers every patch of the base.")
        if args.lint:
            return upstream_lint(base, tree)
        series = [parse_patch(p) for p in base.patch_paths()]
        text = proposal.rfc(base.folder, series)
        words = len(text.split())
        if words > proposal.RFC_MAX_WORDS:
            print(f"warning: the RFC has {words} words, more than {proposal.RFC_MAX_WORDS}", file=sys.stderr)
        sys.stdout.write(text)
        return 0
    if not args.patch:
        raise ForkError("which patch?", "Name a patch file or part of its name, or pass --lint or --rfc.")
    path = find_patch(base, args.patch)
    patch = parse_patch(path)
    upstream.refuse_fork_only(patch)
    needs = [need.patch for need in upstream.needs_of(path, base.patch_paths())]
    if args.checklist:
        sys.stdout.write(proposal.checklist(patch, needs, base.name))
        return 0
    submitter = None if args.pr_body else upstream.submitter_identity(ctx.root, args.author)
    problems = [p.split(": ", 1)[1] for p in upstream.submission_problems(patch, tree)]
    if problems and not args.draft:
        raise ForkError(
            f"{patch.name} is not ready to go upstream ({len(problems)} problem(s)):",
            "\n".join(problems) + "\nFix the commit message in the fork and export "
            "(CONTRIBUTING.md, 'Commit messages'), or pass --draft to print it anyway.",
        )
    for problem in problems:
        print(f"warning: {patch.name}: not for submission: {problem}", file=sys.stderr)
    extra = {"co_author": args.co_author, "issue": args.issue}
    if args.pr_body:
        sys.stdout.write(f"# {patch.subject}\n\n{upstream.pr_body(patch, needs, args.draft, **extra)}")
        return 0
    assert submitter is not None
    sys.stdout.write(upstream.upstream_mail(patch, submitter, needs, args.draft, **extra))
    ctx.log(upstream.AM_HINT)
    return 0


def upstream_lint(base: Base, tree: Path | None) -> int:
    """Every patch of the base: what it needs, and why it is not ready to go upstream."""
    chain = [parse_patch(p) for p in base.patch_paths()]
    needs = upstream.dependencies(chain)
    bad = 0
    note = msgrules.tree_note(tree or upstream.tree_of(base.folder))
    for patch in chain:
        reason = upstream.fork_only_reason(patch)
        if reason is not None:
            print(f"skip {patch.name}\n       fork-only, not proposed: {reason}")
            continue
        problems = upstream.submission_problems(patch, tree)
        bad += bool(problems)
        print(f"{'ok  ' if not problems else 'FAIL'} {patch.name}")
        for need in needs[patch.name]:
            print(f"       needs: {need.patch.subject}  ({'; '.join(need.reasons)})")
        for problem in problems:
            print("       " + problem.split(": ", 1)[1])
    if note:
        print(note)
    print(f"{bad} of {len(chain)} patch(es) not ready to go upstream")
    return 1 if bad else 0


def cmd_check(ctx: Ctx, args: argparse.Namespace) -> int:
    bases = known_bases(ctx.root) if args.all_bases else [ctx.base_name]
    steps = ("static", "apply", "bisect", "gate", "upstream-tests")
    wanted = {name for name in steps if getattr(args, name.replace("-", "_"))}
    wanted = wanted or set(steps)
    failed = False
    for name in bases:
        base = load_base(ctx.root, name)
        print(f"== {name}: {len(base.series())} patches")
        problems = checks.static_problems(base)
        print(f"static: {'ok' if not problems else f'{len(problems)} problem(s)'}")
        for p in problems:
            print("  " + p)
        note = msgrules.tree_note(upstream.tree_of(base.folder))
        if note and name == default_base(ctx.root):
            print("  " + note)
        failed |= bool(problems)
        if wanted == {"static"} or problems:
            continue
        tree = ctx.tree(args, base)
        if "apply" in wanted or not gitutil.is_git_tree(tree):
            try:
                fork.build_tree(base, tree, ctx.cache, ctx.log)
                print(f"apply: ok ({tree})")
            except ForkError as exc:
                print(f"apply: FAILED\n  {exc}")
                failed = True
                continue
        if not ({"bisect", "gate", "upstream-tests"} & wanted):
            continue
        python = venv.ensure(base, tree, venv.venv_dir(ctx.root, base), ctx.log)
        if "bisect" in wanted:
            steps = checks.bisect(base, tree, python, ctx.log)
            bad = [s for s in steps if not s.ok]
            print(f"bisect: {'ok' if not bad else f'{len(bad)} of {len(steps)} commits fail'}")
            for s in steps:
                print(f"  {'ok  ' if s.ok else 'FAIL'} {s.subject}")
                if not s.ok:
                    print("    " + s.detail.replace("\n", "\n    "))
            failed |= bool(bad)
        if "gate" in wanted:
            hook_envs = venv.hook_envs_dir(ctx.root, base)
            findings = checks.gate(base, tree, python, hook_envs, ctx.log)
            print(f"gate: {'ok' if not findings else f'{len(findings)} hook(s) failed'}")
            for f in findings:
                print("  " + f)
            failed |= bool(findings)
        if "upstream-tests" in wanted:
            regressions = checks.upstream_regressions(base, tree, python, ctx.log, ctx.cache)
            print(
                "upstream-tests: "
                + (f"{len(regressions)} test(s) pass at the release and fail on the fork" if regressions else "ok")
            )
            for r in regressions:
                print(f"  {r.test}: {r.state}" + (f": {r.message}" if r.message else ""))
            if regressions:
                print(textwrap.fill(checks.UPSTREAM_REMEDY, 88, initial_indent="  ", subsequent_indent="  "))
            failed |= bool(regressions)
    return 1 if failed else 0


STAND_IN = '''"""Stand-in for vLLM's compiled extension in a Python-only GPU bundle.

vllm/platforms/cuda.py imports vllm._C_stable_libtorch unconditionally; the
Triton ops this bundle is for never call into it.
"""
'''


def cmd_bundle(ctx: Ctx, args: argparse.Namespace) -> int:
    """The fork's Python files for a GPU machine with torch and Triton but no vLLM."""
    import io
    import tarfile

    base = ctx.base()
    tree = ctx.tree(args, base)
    if not gitutil.is_git_tree(tree):
        raise ForkError(f"no fork tree at {tree}", "Run `build` first.")
    dirty = gitutil.is_dirty(tree)
    if dirty:
        raise ForkError(
            f"refusing to bundle: {tree} has uncommitted changes",
            dirty.rstrip() + "\nCommit them (the bundle is the fork's commits), or stash them.",
        )
    series_tests = checks.own_tests(checks.touched_files(base, tree))
    out = Path(args.output) if args.output else ctx.root / ".gpu" / f"bundle-{base.name}.tgz"
    out.parent.mkdir(parents=True, exist_ok=True)

    def keep(info: tarfile.TarInfo) -> tarfile.TarInfo | None:
        name = info.name
        if "__pycache__" in name or name.endswith((".so", ".pyc")):
            return None
        return info

    def add_text(tar: tarfile.TarFile, name: str, text: str) -> None:
        data = text.encode()
        info = tarfile.TarInfo(name)
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))

    with tarfile.open(out, "w:gz") as tar:
        tar.add(tree / "vllm", "vllm", filter=keep)
        if (tree / "vllm.egg-info").is_dir():
            tar.add(tree / "vllm.egg-info", "vllm.egg-info", filter=keep)
        else:
            add_text(tar, "vllm.egg-info/PKG-INFO", f"Metadata-Version: 2.1\nName: vllm\nVersion: {base.version}\n")
        if not (tree / "vllm" / "_C_stable_libtorch.py").exists():
            add_text(tar, "vllm/_C_stable_libtorch.py", STAND_IN)
        tar.add(tree / "tests" / "kernels", "tests/kernels", filter=keep)
        # The series' test files, the test helpers it touches (such as
        # tests/v1/attention/utils.py) and the packages they import them from.
        helpers = [n for n in checks.touched_files(base, tree) if n.startswith("tests/")]
        packages = {
            str(parent / "__init__.py")
            for name in [*series_tests, *helpers]
            for parent in Path(name).parents
            if parent.parts[:1] == ("tests",)
        }
        for name in sorted({"tests/utils.py", *packages, *series_tests, *helpers}):
            if (tree / name).exists() and not name.startswith("tests/kernels/"):
                tar.add(tree / name, name, filter=keep)
        add_text(tar, "series-tests.txt", "".join(t + "\n" for t in series_tests))
        # The benchmark scripts the series adds to vLLM's benchmarks/ (the
        # commands its messages quote).
        for name in checks.touched_files(base, tree):
            if name.startswith("benchmarks/") and (tree / name).exists():
                tar.add(tree / name, name, filter=keep)
        # The release's own version of every vllm/ file the series modifies, so
        # a benchmark can time upstream side by side (e.g. base/vllm/v1/
        # attention/ops/prefix_prefill.py before the block-table fix).
        modified = gitutil.git(tree, "diff", "--name-only", "--diff-filter=M", f"{base.tag}..HEAD").stdout.split()
        for name in modified:
            if name.startswith("vllm/"):
                add_text(tar, f"base/{name}", gitutil.git(tree, "show", f"{base.tag}:{name}").stdout)
    print(f"bundle: {out} ({out.stat().st_size / 2**20:.1f} MiB, {len(series_tests)} series test files)")
    return 0


def cmd_rebase(ctx: Ctx, args: argparse.Namespace) -> int:
    """Move --base's queue onto another release or a vLLM checkout."""
    from vllm_fork import rebase

    if args.cont or args.skip or args.abort:
        tree = rebase.tree_in_progress(ctx.root, args.fork)
        if args.abort:
            rebase.abort(ctx.root, tree, ctx.log)
            print(f"rebase aborted: {tree} removed, patches/ unchanged")
            return 0
        state = rebase.load(tree)
        steps = rebase.resume(ctx.root, load_base(ctx.root, state.old), tree, ctx.log, skip=args.skip)
        old_name, new_name = state.old, state.new["name"]
    else:
        if bool(args.onto) == bool(args.onto_source):
            raise ForkError(
                "rebase needs exactly one of --onto and --onto-source",
                "--onto v0.32.0 (a release, pinned from the package index), or\n"
                "--onto-source /path/to/vllm --onto-name main (a git checkout).",
            )
        old = ctx.base()
        if args.onto:
            new = rebase.pin_release(ctx.root, args.onto, old, ctx.cache, ctx.log)
            checkout = None
        else:
            checkout = Path(args.onto_source)
            name = args.onto_name or ""
            if not name:
                raise ForkError("--onto-source needs --onto-name (the new base's folder name, e.g. main)")
            new = rebase.pin_source(ctx.root, checkout, name, args.onto_rev, old)
        tree = Path(args.fork).resolve() if args.fork else ctx.root / ".fork" / new.name
        state = rebase.start(ctx.root, old, new, tree, ctx.cache, ctx.log, checkout)
        steps = rebase.proceed(ctx.root, old, state, ctx.log)
        old_name, new_name = old.name, new.name
    width = max(len(s.patch) for s in steps)
    print(f"rebase {old_name} -> {new_name} ({tree}):")
    for s in steps:
        print(f"  {s.outcome:17} {s.patch:{width}}  {s.detail}".rstrip())
    kept = len(load_base(ctx.root, new_name).series())
    print(f"wrote patches/{new_name}/ (pin.toml, series, {kept} patches)")
    print(f"next: ./vllm-fork --base {new_name} check   (and review pin.toml's [environment])")
    return 0


def cmd_test(ctx: Ctx, args: argparse.Namespace) -> int:
    """Every test: the tool's own, then every base's full check.

    Independent work runs side by side, each job as soon as what it needs is
    there and there is room for the processes it keeps computing: a base's
    build (the `apply` check: a fresh tree from the pinned sdist and the
    series, and its venv), then that base's bisect and gate; the Triton
    target check (a job per group of targets) and the tool's tests
    (pytest-xdist, two workers) once every base is built."""
    names = known_bases(ctx.root)
    failed = False
    for name in names:
        problems = checks.static_problems(load_base(ctx.root, name))
        # Paths only a vLLM tree can confirm wait for the base's build: its
        # check jobs below run the static check again, with the tree.
        later = [p for p in problems if upstream.UNCHECKED_WITHOUT_TREE in p]
        problems = [p for p in problems if p not in later]
        print(f"== {name}: static: {'ok' if not problems else f'{len(problems)} problem(s)'}")
        for p in problems:
            print("  " + p)
        if later:
            print(f"  {len(later)} quoted path(s) checked once {name} is built")
        failed |= bool(problems)
    if failed:
        print("vllm-fork test: FAILED (static)")
        return 1
    import tempfile

    with tempfile.TemporaryDirectory(prefix="vllm-fork-check-") as tmp:
        # Each process of a job computes on one thread: the jobs are counted
        # in processes below. (torch's default, a thread per core in every test
        # process, cost two kernel-test runs side by side 9-11% more CPU each.)
        env = dict(os.environ, VLLM_FORK_CACHE=str(ctx.cache), PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
        # The cores this process may run on (os.cpu_count() where the OS does
        # not say: macOS), and one more: jobs also wait on git, the disk and
        # their children (two bisects side by side kept 1.77 of 2 cores busy).
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        jobs = all_test_jobs(ctx, names, Path(tmp))
        failed = not run_jobs(jobs, ctx.root, env, processes=(cores or 1) + 1)
    print("vllm-fork test: " + ("FAILED" if failed else "all passed"))
    return 1 if failed else 0


TARGET_CHECK = "tests/integration/test_triton_targets.py::test_kernels_fit_every_target"
# The Triton target check's groups of targets (tools/triton_targets.py
# --targets; tests/integration/test_triton_targets.py checks that together
# they are every target), each of about equal compile time: a test and a job.
# (context_attention_fwd compiles for the AMD targets only: sm_90 goes with one.)
TRITON_TARGET_GROUPS = ("sm_90,gfx90a", "gfx942,gfx950")


class Job(NamedTuple):
    cmd: list[str]
    needs: list[str]  # jobs that must have passed first
    processes: int  # how many processes it keeps computing at once


def all_test_jobs(ctx: Ctx, names: list[str], tmp: Path) -> dict[str, Job]:
    """`test`'s jobs, in the order they start when they can: each base's
    build, the bisects, the upstream-tests checks and the gates (on copies
    of the fork trees in `tmp`), the Triton target check, the tool's tests."""
    tool = [sys.executable, str(ctx.root / "vllm-fork"), "--repo", str(ctx.root)]
    tool += ["--cache", str(ctx.cache)]
    python = venv.python_of(venv.venv_dir(ctx.root, ctx.base()))
    builds = [f"build {n} (= check --apply)" for n in names]
    jobs: dict[str, Job] = {}
    # The newest base first.
    for n in sorted(names, key=lambda n: n != ctx.base_name):
        jobs[f"build {n} (= check --apply)"] = Job([*tool, "--base", n, "build"], [], processes=1)
    # bisect and upstream-tests check commits out and gate runs mypy at the
    # base too: each works on its own copy of each fork tree (the sdist's
    # ignored files included), so the tool's tests see HEAD and they run side
    # by side. The bisects first: they are the longest jobs.
    for check in ("bisect", "upstream-tests", "gate"):
        for n in names:
            tree = fork.fork_dir(ctx.root, load_base(ctx.root, n))
            copy = tmp / f"{n}-{check}"
            jobs[f"copy {n} for {check}"] = Job(
                ["cp", "-a", str(tree), str(copy)],
                [f"build {n} (= check --apply)"],
                processes=0,  # waits on the disk
            )
            jobs[f"check {n}: {check}"] = Job(
                [*tool, "--base", n, "check", f"--{check}", "--fork", str(copy)],
                [f"copy {n} for {check}"],
                processes=1,
            )
    # Tests that read .fork/<base> (at its HEAD) need every base built; they
    # wait for the bisects' copies too, so that the bisects start first. The
    # Triton target check, a test per group of targets that compiles for
    # each base in turn, runs as one job per group.
    after = [*builds, *(f"copy {n} for bisect" for n in names)]
    pytest = [str(python), "-m", "pytest", "-p", "no:cacheprovider"]
    for group in TRITON_TARGET_GROUPS:
        jobs[f"Triton target check: {group}"] = Job([*pytest, "-q", f"{TARGET_CHECK}[{group}]"], after, processes=1)
    workers = 2  # pytest-xdist
    jobs["the tool's tests (synthetic upstream, then the real pinned sdists)"] = Job(
        [*pytest, "-n", str(workers), "--durations=10", "--deselect", TARGET_CHECK, "tests"],
        after,
        processes=workers,
    )
    return jobs


def run_jobs(jobs: dict[str, Job], cwd: Path, env: dict[str, str], processes: int) -> bool:
    """Run each job, in the order given, once the jobs it needs have passed
    and the jobs running keep few enough processes computing that its own
    fit in `processes` (one wider than that runs alone); print each one's
    output as a block when it ends, with its time. True when all passed.

    More processes than cores cost CPU time: on a 2-core machine, copies of
    one kernel test took 5-8% more CPU each when 4 ran at once than at 2,
    13-14% more at 6."""
    import subprocess
    import tempfile
    import time

    done: set[str] = set()
    failed: set[str] = set()
    waiting = dict(jobs)
    running: dict[str, tuple[subprocess.Popen[bytes], IO[bytes], float]] = {}
    begin = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="vllm-fork-test-") as tmp:
        while waiting or running:
            for title, job in list(waiting.items()):
                if any(n in failed for n in job.needs):
                    del waiting[title]
                    failed.add(title)
                    print(f"== {title}: not run (needs {', '.join(job.needs)})", flush=True)
                    continue
                if any(n not in done for n in job.needs):
                    continue
                busy = sum(jobs[t].processes for t in running)
                if busy and busy + job.processes > processes:
                    continue
                del waiting[title]
                out = (Path(tmp) / f"{len(done) + len(failed) + len(running)}.log").open("w+b")
                proc = subprocess.Popen(job.cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
                running[title] = (proc, out, time.monotonic())
                print(f"-- {time.monotonic() - begin:4.0f} s: started {title}", flush=True)
            for title, (proc, out, start) in list(running.items()):
                # wait4, not poll: the job's CPU time (its children's included)
                # comes with its exit status.
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid == 0:
                    continue
                proc.returncode = os.waitstatus_to_exitcode(status)
                del running[title]
                passed = proc.returncode == 0
                (done if passed else failed).add(title)
                verdict = "ok" if passed else f"FAILED (exit {proc.returncode})"
                end = time.monotonic()
                cpu = usage.ru_utime + usage.ru_stime
                print(
                    f"== {title}: {verdict} in {end - start:.0f} s, {cpu:.0f} CPU-s (at {end - begin:.0f} s)",
                    flush=True,
                )
                out.seek(0)
                sys.stdout.buffer.write(out.read())
                out.close()
                sys.stdout.flush()
            time.sleep(0.5)
    return not failed


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="vllm-fork", description=__doc__)
    p.add_argument("--repo", help="the patch-queue checkout (default: found from the cwd)")
    p.add_argument("--base", help="e.g. v0.33.0 (default: the newest under patches/)")
    p.add_argument("--cache", help="download cache (default: $VLLM_FORK_CACHE or .cache/)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    sub = p.add_subparsers(dest="verb", required=True)

    b = sub.add_parser("build", help="fetch upstream, apply the series as commits, install a venv")
    b.add_argument("--source", help="a local vLLM git checkout instead of the sdist")
    b.add_argument("--fork", help="where the fork tree goes (default: .fork/<base>)")
    b.add_argument("--no-venv", action="store_true", help="only the git tree")
    b.set_defaults(func=cmd_build)

    a = sub.add_parser("apply", help="apply the series onto your own vLLM checkout")
    a.add_argument("target", help="a clean vLLM git checkout at the base release")
    a.set_defaults(func=cmd_apply)

    e = sub.add_parser("export", help="regenerate patches/<base>/ from the fork's commits")
    e.add_argument("--fork", help="the fork tree (default: .fork/<base>)")
    e.set_defaults(func=cmd_export)

    c = sub.add_parser("check", help="static lint, applies, bisectable, vLLM's gate")
    c.add_argument("--fork", help="the fork tree (default: .fork/<base>)")
    c.add_argument("--all-bases", action="store_true")
    for name, text in (
        ("static", "series and headers, no network"),
        ("apply", "the series applies on the pinned base (rebuilds the fork tree)"),
        ("bisect", "after each patch vllm imports and the patch's own tests pass"),
        ("gate", "ruff, typos, mypy and tools/pre_commit on touched files"),
        ("upstream-tests", "the release's tests of the files the series modifies pass on the fork as on the release"),
    ):
        c.add_argument(f"--{name}", action="store_true", help=text)
    c.set_defaults(func=cmd_check)

    s = sub.add_parser("status", help="per patch: applied, applies, already upstream, conflicting")
    s.add_argument("--fork", help="the fork tree (default: .fork/<base>)")
    s.add_argument("--series", help="judge another queue's patches against this base")
    s.set_defaults(func=cmd_status)

    g = sub.add_parser("bundle", help="the fork's Python files for a GPU machine without vLLM")
    g.add_argument("--fork", help="the fork tree (default: .fork/<base>)")
    g.add_argument("-o", "--output", help="default: .gpu/bundle-<base>.tgz")
    g.set_defaults(func=cmd_bundle)

    r = sub.add_parser("rebase", help="move the queue of --base onto another release or a checkout")
    r.add_argument("--onto", help="a vLLM release, e.g. v0.32.0 (pinned from the package index)")
    r.add_argument("--onto-source", help="a vLLM git checkout (e.g. of main) instead of a release")
    r.add_argument("--onto-name", help="with --onto-source: the new base's name, e.g. main")
    r.add_argument("--onto-rev", default="HEAD", help="with --onto-source: the commit (default HEAD)")
    r.add_argument("--fork", help="the new fork tree (default: .fork/<new base>)")
    how = r.add_mutually_exclusive_group()
    how.add_argument("--continue", dest="cont", action="store_true", help="after resolving a conflict")
    how.add_argument("--skip", action="store_true", help="drop the conflicting patch")
    how.add_argument("--abort", action="store_true", help="remove the new tree; write nothing")
    r.set_defaults(func=cmd_rebase)

    t = sub.add_parser("test", help="every test: the tool's, then check --all-bases")
    t.set_defaults(func=cmd_test)

    u = sub.add_parser(
        "upstream",
        help="print one patch as it would go upstream (apply with: git am --keep-non-patch)",
        description="Print one patch as a mail for `git am --keep-non-patch` (plain `git am` "
        "drops the [Tag] title prefixes): From: and Signed-off-by: are the submitter's "
        "(git config user.name/user.email, or --author), internal trailers are stripped, the "
        "body is vLLM's PR template (Overview, Claims, Validation, Details) and its Overview "
        "opens with a 'Needs: <subject>' line per earlier patch it needs; Details ends with the "
        "AI-assistance statement and the duplicate searches, and the template's checklist follows. "
        "Refuses a fork-only patch (Upstream-Status: Inappropriate [...]), and one whose message "
        "breaks a message rule (`--lint` lists them). --checklist: the submitter's to-do; "
        "--rfc: the RFC issue for the whole stack.",
    )
    u.add_argument("patch", nargs="?", help="a patch file, or part of its name")
    u.add_argument("--pr-body", action="store_true", help="only the PR description")
    u.add_argument("--author", metavar="'NAME <MAIL>'", help="submitter (default: git identity)")
    u.add_argument(
        "--draft",
        "--allow-missing",
        action="store_true",
        help="print even with missing sections or internal references (warned on stderr)",
    )
    u.add_argument("--lint", action="store_true", help="every patch: its needs, what is not ready")
    u.add_argument("--checklist", action="store_true", help="the submitter's to-do for the patch's PR")
    u.add_argument("--rfc", action="store_true", help="the RFC issue for the stack (patches/<base>/rfc.md + PR plan)")
    u.add_argument(
        "--co-author",
        default=upstream.DEFAULT_CO_AUTHOR,
        metavar="'NAME [<MAIL>]'",
        help=f"the AI assistant's Co-authored-by: trailer (default: {upstream.DEFAULT_CO_AUTHOR}, vLLM's example)",
    )
    u.add_argument("--issue", type=int, help="the vLLM issue (the RFC) the duplicate searches look for")
    u.add_argument("--fork", help="vLLM tree for benchmarks/ paths (default: .fork/<base>, if built)")
    u.set_defaults(func=cmd_upstream)
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    try:
        return args.func(Ctx(args), args)
    except ForkError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        print(f"error: {exc.strerror or exc}{where}", file=sys.stderr)
        print("  A file the tool needs vanished or cannot be written: check the path and rerun.", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
