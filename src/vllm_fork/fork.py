"""From patches/ to a vLLM git tree and back: build, apply, export, status."""

from __future__ import annotations

import os
import re
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from vllm_fork import gitutil, source
from vllm_fork.bases import Base
from vllm_fork.errors import ForkError, PatchDoesNotApply
from vllm_fork.gitutil import git
from vllm_fork.patchfile import Patch, parse_patch

AM_FAIL_RE = re.compile(r"error: patch failed: (.+):(\d+)")
AM_FILE_RE = re.compile(r"error: (.+): (does not exist in index|already exists in index|No such file or directory|patch does not apply)")
AM_CORRUPT_RE = re.compile(r"error: corrupt patch at line (\d+)")
FORMAT_PATCH_ARGS = (
    "format-patch",
    "--zero-commit",
    "--no-signature",
    "--no-numbered",
    "--abbrev=12",
    "--full-index",
    "--no-binary",
    "--stat=80",
    "--filename-max-length=100",
    "--no-cover-letter",
)


def fork_dir(root: Path, base: Base) -> Path:
    return root / ".fork" / base.name


# --- materializing the base --------------------------------------------------


def materialize_base(
    base: Base, dest: Path, cache_dir: Path, log, source_checkout: Path | None = None
) -> None:
    """A git repo at `dest` whose tagged commit is exactly upstream's release."""
    if source_checkout is None and not base.sdist:
        raise ForkError(
            f"base {base.name} is a vLLM git checkout, not a release (its pin has no sdist)",
            f"Pass --source <a vLLM clone that has commit {base.upstream_commit[:12]}>.",
        )
    if source_checkout is None:
        sdist = source.fetch_sdist(base, cache_dir, log)
        log(f"unpacking {sdist.name}")
        source.extract_sdist(sdist, dest)
        git(dest, "init", "-q", "-b", "main")
        # .gitignore keeps the generated vllm/_version.py and egg-info out of
        # the commit: they stay in the tree, untracked, so `import vllm` works.
        git(dest, "add", "-A")
        git(
            dest,
            "commit",
            "-q",
            "-m",
            f"vLLM {base.version} (sdist {base.sdist}, sha256 {base.sha256[:16]})",
            env=gitutil.BASE_IDENTITY,
        )
        git(dest, "tag", base.tag)
        return
    checkout = source_checkout.resolve()
    if not gitutil.is_git_tree(checkout):
        raise ForkError(f"--source {checkout} is not the top of a git checkout")
    rev = None
    for candidate in (f"refs/tags/{base.tag}", base.upstream_commit):
        proc = git(checkout, "rev-parse", "--verify", "-q", f"{candidate}^{{commit}}", check=False)
        if proc.returncode == 0:
            rev = proc.stdout.strip()
            break
    if rev is None:
        raise ForkError(
            f"--source {checkout} has neither tag {base.tag} nor commit {base.upstream_commit}",
            "Point --source at a vLLM clone that contains the pinned release.",
        )
    log(f"cloning {checkout} at {base.tag} ({rev[:12]})")
    git(checkout.parent, "clone", "-q", "--no-checkout", str(checkout), str(dest))
    git(dest, "checkout", "-q", "-B", "main", rev)
    git(dest, "tag", "-f", base.tag, rev)


# --- applying patches ---------------------------------------------------------


def describe_failure(patch: Patch, output: str) -> str:
    """'file F, hunk N of M (@@ ... @@)' from git am's complaint."""
    match = AM_FAIL_RE.search(output)
    if match:
        path, line = match.group(1), int(match.group(2))
        hunk = patch.find_hunk(path, line)
        if hunk is not None:
            return f"file {path}, hunk {hunk.index} of {hunk.count} ({hunk.header.split(' @@')[0]} @@)"
        return f"file {path}, at line {line}"
    match = AM_FILE_RE.search(output)
    if match:
        return f"file {match.group(1)}: {match.group(2)}"
    match = AM_CORRUPT_RE.search(output)
    if match:
        return f"malformed patch: corrupt hunk at line {match.group(1)} of the diff"
    errors = git_errors(output).splitlines()
    return errors[-1].removeprefix("error: ") if errors else "unknown reason"


def git_errors(output: str) -> str:
    """git's error lines without its advice (hints, `git am --continue`): the
    tool has already undone the state that advice is about."""
    keep = ("error:", "fatal:", "warning:")
    return "\n".join(line for line in output.splitlines() if line.startswith(keep))


def am(tree: Path, patch_path: Path) -> None:
    """Apply one patch as a commit, exactly (zero fuzz), or raise and leave no am state."""
    proc = git(
        tree,
        "am",
        "-q",
        "--keep-non-patch",
        "--committer-date-is-author-date",
        str(patch_path),
        check=False,
    )
    if proc.returncode != 0:
        output = proc.stdout + proc.stderr
        git(tree, "am", "--abort", check=False)
        patch = parse_patch(patch_path)
        raise PatchDoesNotApply(
            f"patch {patch.name} does not apply: {describe_failure(patch, output)}",
            git_errors(output),
        )


def apply_series(tree: Path, patches: list[Path], log) -> None:
    for i, path in enumerate(patches, start=1):
        log(f"[{i}/{len(patches)}] applying {path.name}")
        am(tree, path)


# --- build -------------------------------------------------------------------


def in_progress(tree: Path) -> str:
    """The git operation (am, rebase, cherry-pick, merge) left open in `tree`, if any."""
    for name, what in (
        ("rebase-merge", "a rebase"),
        ("rebase-apply", "a git am or rebase"),
        ("CHERRY_PICK_HEAD", "a cherry-pick"),
        ("MERGE_HEAD", "a merge"),
        ("REVERT_HEAD", "a revert"),
    ):
        path = git(tree, "rev-parse", "--git-path", name).stdout.strip()
        if (tree / path).exists():
            return what
    return ""


def unexported_work(base: Base, tree: Path) -> list[str]:
    """What a fork tree holds that patches/ does not: lost if it were replaced."""
    if not tree.exists():
        return []
    if not gitutil.is_git_tree(tree) or git(tree, "rev-parse", "-q", "--verify", "HEAD", check=False).returncode:
        return [f"{tree} exists but is not a readable git tree (it may hold work the tool cannot see)"]
    findings = []
    busy = in_progress(tree)
    if busy:
        findings.append(f"{busy} is in progress")
    dirty = gitutil.is_dirty(tree)
    if dirty:
        findings.append("uncommitted changes:\n" + dirty.rstrip())
    series_ids = set()
    for path in base.patch_paths():
        if path.is_file():
            pid = gitutil.patch_id(tree, parse_patch(path).diff)
            if pid:
                series_ids.add(pid)
    proc = git(tree, "rev-parse", "--verify", "-q", base.tag, check=False)
    if proc.returncode == 0:
        for pid, commit in gitutil.commit_patch_ids(tree, f"{base.tag}..HEAD").items():
            if pid not in series_ids:
                subject = git(tree, "log", "-1", "--format=%s", commit).stdout.strip()
                findings.append(f"commit {commit[:12]} {subject!r} is not in patches/{base.name}/")
    return findings


def remove_tree(path: Path) -> None:
    """rmtree that survives files vanishing or appearing underneath it (git's
    background gc in a tree that was just renamed away)."""
    for _ in range(5):
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            return
        time.sleep(0.2)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def clean_stale_staging(dest: Path, log) -> None:
    """Remove the staging folders of builds that were killed (`.<name>.*` next
    to `dest`); a killed build that had already moved the old tree aside gets
    it moved back first."""
    if not dest.parent.is_dir():
        return
    for staging in sorted(dest.parent.glob(f".{dest.name}.*")):
        if not staging.is_dir():
            continue
        owner = staging / "owner.pid"
        try:
            alive = _pid_alive(int(owner.read_text()))
        except (OSError, ValueError):
            alive = time.time() - staging.stat().st_mtime < 60
        if alive:
            continue
        old = staging / "old"
        if old.is_dir() and not dest.exists():
            old.rename(dest)
            log(f"restored {dest} from the staging folder of a build that was interrupted")
        log(f"removing {staging} (left by a build that was interrupted)")
        remove_tree(staging)


def build_tree(base: Base, dest: Path, cache_dir: Path, log, source_checkout: Path | None = None) -> None:
    """Materialize base + series at `dest`; an existing tree is replaced only if nothing would be lost.

    The new tree is made in a staging folder beside `dest` and put in place by
    rename; the old one is deleted only after that, so a build that is killed
    leaves the old tree (and a staging folder the next build removes)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_staging(dest, log)
    refuse_to_replace(base, dest)
    staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}.", dir=dest.parent))
    (staging / "owner.pid").write_text(str(os.getpid()))
    try:
        tree = staging / "tree"
        materialize_base(base, tree, cache_dir, log, source_checkout)
        apply_series(tree, base.patch_paths(), log)
        if dest.exists():
            refuse_to_replace(base, dest)  # again: the user may have committed meanwhile
            dest.rename(staging / "old")
        tree.rename(dest)
    finally:
        remove_tree(staging)


def refuse_to_replace(base: Base, dest: Path) -> None:
    lost = unexported_work(base, dest)
    if lost:
        raise ForkError(
            f"{dest} has work that is not exported to patches/{base.name}/",
            "\n".join(lost) + "\nCommit and run `export` first, or move the tree away.",
        )


# --- export ------------------------------------------------------------------


def patch_file_name(format_patch_name: str) -> str:
    """'0003-ROCm-Kernel-Add-x.patch' -> 'ROCm-Kernel-Add-x.patch' (stable on insertions)."""
    return re.sub(r"^\d{4}-", "", format_patch_name)


def export(base: Base, tree: Path, log) -> list[str]:
    """Regenerate patches/<base>/ from the fork's commits; return changed file names."""
    if not gitutil.is_git_tree(tree):
        raise ForkError(f"no fork tree at {tree}", "Run `build` first.")
    dirty = gitutil.is_dirty(tree)
    if dirty:
        raise ForkError(
            f"refusing to export: {tree} has uncommitted changes",
            dirty.rstrip() + "\nCommit (or stash) them in the fork first.",
        )
    with tempfile.TemporaryDirectory(prefix="vllm-fork-export-") as tmp:
        out = Path(tmp)
        git(tree, *FORMAT_PATCH_ARGS, "-o", str(out), f"{base.tag}..HEAD")
        generated = sorted(out.glob("*.patch"))
        names: list[str] = []
        for path in generated:
            name = patch_file_name(path.name)
            while name in names:
                name = name.removesuffix(".patch") + "-1.patch"
            names.append(name)
        changed = []
        base.folder.mkdir(parents=True, exist_ok=True)
        for path, name in zip(generated, names):
            target = base.folder / name
            data = path.read_bytes()
            if not target.exists() or target.read_bytes() != data:
                target.write_bytes(data)
                changed.append(name)
        for stale in sorted(base.folder.glob("*.patch")):
            if stale.name not in names:
                stale.unlink()
                changed.append(stale.name)
        series = render_series(base, names)
        if not base.series_path.exists() or base.series_path.read_text() != series:
            base.series_path.write_text(series)
            changed.append("series")
    for name in changed:
        log(f"wrote {base.folder.name}/{name}")
    if not changed:
        log(f"patches/{base.name}/ is up to date ({len(names)} patches)")
    return changed


def render_series(base: Base, names: list[str]) -> str:
    """Keep the series file's leading comment block; list the patches after it."""
    header = []
    if base.series_path.exists():
        for line in base.series_path.read_text().splitlines():
            if line.startswith("#") or not line.strip():
                header.append(line)
            else:
                break
    while header and not header[-1].strip():
        header.pop()
    if not header:
        header = [f"# Patches against vLLM {base.version}, in order. One file name a line."]
    return "\n".join(header + ([""] + names if names else [])) + "\n"


# --- status ------------------------------------------------------------------


@dataclass
class PatchStatus:
    name: str
    state: str  # applied | applies | already upstream | conflicting
    detail: str = ""


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", version)[:3])


def backported_from(patch: Patch) -> str | None:
    """The upstream release a `Backport [vX.Y.Z]` patch came from, if it names one."""
    for value in patch.trailer_values("Upstream-Status"):
        match = re.match(r"Backport \[v?(\d+\.\d+(?:\.\d+)?)\]", value)
        if match:
            return match.group(1)
    return None


def simulate(base_tree: Path, rev: str, patches: list[Path], version: str = "") -> list[PatchStatus]:
    """Apply the patches in order to a scratch index of `rev` (no work tree touched).

    A patch is already upstream when its change is present (it reverse-applies)
    or when it is a backport from a release no newer than `version`: then its
    backport-only adaptations may keep it from reverse-applying exactly."""
    results = []
    with tempfile.TemporaryDirectory(prefix="vllm-fork-index-") as tmp:
        env = {"GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(base_tree, "read-tree", rev, env=env)
        for path in patches:
            patch = parse_patch(path)
            forward = git(base_tree, "apply", "--cached", "--check", str(path), env=env, check=False)
            if forward.returncode == 0:
                git(base_tree, "apply", "--cached", str(path), env=env)
                results.append(PatchStatus(patch.name, "applies"))
                continue
            reverse = git(
                base_tree, "apply", "--cached", "--check", "--reverse", str(path), env=env, check=False
            )
            since = backported_from(patch)
            if reverse.returncode == 0:
                results.append(PatchStatus(patch.name, "already upstream", "its change is already present"))
            elif since and version and version_key(since) <= version_key(version):
                results.append(PatchStatus(patch.name, "already upstream", f"backport from v{since}"))
            else:
                detail = describe_failure(patch, forward.stderr)
                results.append(PatchStatus(patch.name, "conflicting", detail))
    return results


def status(base: Base, tree: Path, patches: list[Path]) -> tuple[list[PatchStatus], list[str]]:
    """Per patch: applied in the fork, applies, already upstream, or conflicting."""
    results = simulate(tree, base.tag, patches, base.version)
    fork_ids = gitutil.commit_patch_ids(tree, f"{base.tag}..HEAD")
    base_ids = gitutil.commit_patch_ids(tree, base.tag)
    for result, path in zip(results, patches):
        pid = gitutil.patch_id(tree, parse_patch(path).diff)
        if pid in base_ids:
            result.state, result.detail = "already upstream", f"same patch-id as {base_ids[pid][:12]}"
        elif pid in fork_ids and result.state == "applies":
            result.state, result.detail = "applied", f"commit {fork_ids[pid][:12]}"
    return results, unexported_work(base, tree)


# --- apply onto a user's checkout ------------------------------------------------


def checkout_version(tree: Path) -> str | None:
    version_file = tree / "vllm" / "_version.py"
    if version_file.is_file():
        match = re.search(r"__version__ = version = '([^']+)'", version_file.read_text())
        if match:
            return match.group(1)
    return None


def base_matches(base: Base, tree: Path) -> tuple[bool, str]:
    for rev in (base.upstream_commit, f"refs/tags/{base.tag}"):
        proc = git(tree, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False)
        if proc.returncode == 0:
            ancestor = git(tree, "merge-base", "--is-ancestor", proc.stdout.strip(), "HEAD", check=False)
            if ancestor.returncode == 0:
                return True, f"HEAD contains {rev}"
    version = checkout_version(tree)
    if version == base.version:
        return True, f"vllm/_version.py says {version}"
    found = f"vllm/_version.py says {version}" if version else "no vllm/_version.py"
    return False, f"HEAD contains neither {base.upstream_commit} nor tag {base.tag}; {found}"


def apply_to_checkout(base: Base, target: Path, log) -> None:
    """The cherry-pick case: the series as commits on the user's current branch.

    The patches are applied in a throwaway clone; only when all of them apply
    is the user's branch fast-forwarded to the result, so an interrupted or
    failed apply leaves the checkout as it was."""
    target = target.resolve()
    if not gitutil.is_git_tree(target):
        raise ForkError(f"{target} is not the top of a git checkout")
    ok, why = base_matches(base, target)
    if not ok:
        raise ForkError(
            f"{target} is not based on vLLM {base.version}: {why}",
            f"Check out {base.tag} (or pass the base that matches) and try again.",
        )
    busy = in_progress(target)
    if busy:
        raise ForkError(f"refusing to apply: {busy} is in progress in {target}", "Finish or abort it first.")
    dirty = gitutil.is_dirty(target)
    if dirty:
        raise ForkError(f"refusing to apply: {target} has uncommitted changes", dirty.rstrip())
    patches = base.patch_paths()
    head = git(target, "rev-parse", "HEAD").stdout.strip()
    with tempfile.TemporaryDirectory(prefix="vllm-fork-apply-") as tmp:
        work = Path(tmp) / "tree"
        git(Path(tmp), "clone", "-q", "--shared", "--no-checkout", str(target), str(work))
        git(work, "checkout", "-q", "--detach", head)
        problems = []
        for i, path in enumerate(patches, start=1):
            log(f"[{i}/{len(patches)}] applying {path.name}")
            try:
                am(work, path)
            except PatchDoesNotApply as exc:
                problems.append(exc.message)
        if problems:
            raise PatchDoesNotApply(
                f"{len(problems)} patch(es) of {base.name} do not apply to {target}; nothing was changed",
                "\n".join(problems + already_applied_hint(target, patches)),
            )
        new = git(work, "rev-parse", "HEAD").stdout.strip()
        git(target, "fetch", "-q", "--no-tags", "--no-write-fetch-head", str(work), new)
    git(target, "merge", "-q", "--ff-only", new)


def already_applied_hint(target: Path, patches: list[Path]) -> list[str]:
    """Say so when the checkout's recent history already has patches of the series."""
    recent = gitutil.commit_patch_ids(target, "-n200")
    found = []
    for path in patches:
        pid = gitutil.patch_id(target, parse_patch(path).diff)
        if pid in recent:
            found.append(f"{path.name} is already applied (commit {recent[pid][:12]})")
    return found
