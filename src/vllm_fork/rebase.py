"""`rebase`: move a queue from its base onto another vLLM release or a vLLM checkout.

The new base is materialized as a fork tree; the old base with its series is
built beside it from its own pin and its commits are fetched into the new
tree, so each patch that does not apply exactly is cherry-picked: a real
3-way merge whose merge base is the old release's blobs. At the first
conflict the run stops in the fork tree with the patch, file and hunk named;
`--continue` takes the user's resolution, `--skip` drops the patch, `--abort`
removes the new tree. At the end `patches/<new base>/` is written (pin,
series, patches) and every patch is reported as one of OUTCOMES.

State lives in the new tree's git dir (STATE_FILE); `.fork/rebase-in-progress`
names that tree, so `--continue` and `--abort` need no arguments.
"""

from __future__ import annotations

import json
import re
import tarfile
import tempfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from vllm_fork import fork, gitutil, source
from vllm_fork.bases import Base, Environment
from vllm_fork.errors import ForkError, NetworkError
from vllm_fork.fork import describe_failure, in_progress
from vllm_fork.gitutil import git
from vllm_fork.patchfile import parse_patch

OUTCOMES = ("applied clean", "applied 3-way", "resolved by hand", "already upstream", "dropped")
STATE_FILE = "vllm-fork-rebase.json"
POINTER = "rebase-in-progress"
OLD_REF = "refs/vllm-fork/old-series"
COMMIT_ID_RE = re.compile(r"__commit_id__ = commit_id = '(?:g)?([0-9a-f]+)'")


# --- the new base's pin ------------------------------------------------------------


def pin_release(root: Path, version: str, like: Base, cache: Path, log) -> Base:
    """A pin for release `version` from the package index: sdist name and
    sha256 from the index, the upstream commit from the sdist's _version.py."""
    version = version.removeprefix("v")
    sdist = f"vllm-{version}.tar.gz"
    url, sha, errors = "", None, []
    for index in source.configured_indexes():
        try:
            url, sha = source.find_sdist_url(index, sdist)
        except NetworkError as exc:
            errors.append(str(exc))
            continue
        if url:
            break
        errors.append(f"{index} has no {sdist}")
    if not url:
        raise ForkError(
            f"no vLLM release {version} on the package index: " + "; ".join(errors),
            "Check the version (`pip index versions vllm`) and the network.",
        )
    if sha is None:
        with tempfile.TemporaryDirectory(prefix="vllm-fork-pin-") as tmp:
            part = Path(tmp) / sdist
            source._download(url, part, log)
            sha = source.sha256_of(part)
            cached = cache / "sdists" / sha / sdist
            cached.parent.mkdir(parents=True, exist_ok=True)
            part.replace(cached)
    base = Base(
        name=f"v{version}",
        folder=root / "patches" / f"v{version}",
        version=version,
        tag=f"v{version}",
        sdist=sdist,
        sha256=sha,
        upstream_commit="",
        environment=like.environment,
    )
    path = source.fetch_sdist(base, cache, log)
    return replace(base, upstream_commit=sdist_commit(path, version))


def sdist_commit(sdist: Path, version: str) -> str:
    """The upstream commit an sdist was cut from (its generated _version.py)."""
    with tarfile.open(sdist) as tar:
        try:
            member = tar.extractfile(f"vllm-{version}/vllm/_version.py")
        except KeyError:
            member = None
        text = member.read().decode() if member else ""
    match = COMMIT_ID_RE.search(text)
    if not match:
        raise ForkError(
            f"{sdist.name}: no commit id in vllm/_version.py", "Write upstream_commit by hand."
        )
    return match.group(1)


def pin_source(root: Path, checkout: Path, name: str, rev: str, like: Base) -> Base:
    """A pin for a vLLM git checkout (e.g. main): its commit, no sdist."""
    checkout = checkout.resolve()
    if not gitutil.is_git_tree(checkout):
        raise ForkError(f"--onto-source {checkout} is not the top of a git checkout")
    proc = git(checkout, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False)
    if proc.returncode != 0:
        raise ForkError(f"{checkout} has no commit {rev!r}", "Pass --onto-rev with a commit of it.")
    commit = proc.stdout.strip()
    tag = name if re.fullmatch(r"v\d+(\.\d+)*", name) else f"upstream-{name}"
    return Base(
        name=name,
        folder=root / "patches" / name,
        version=name.removeprefix("v"),
        tag=tag,
        sdist="",
        sha256="",
        upstream_commit=commit,
        environment=like.environment,
    )


def render_pin(base: Base, old: Base, source_checkout: str) -> str:
    head = "# The upstream vLLM release this queue applies to.\n"
    if source_checkout:
        head = (
            f"# A vLLM git checkout, not a release ({source_checkout}): build it with\n"
            f"# `vllm-fork --base {base.name} build --source <checkout>`"
            f" (one with commit {base.upstream_commit[:12]}).\n"
        )
    lines = [
        head.rstrip("\n"),
        f'version = "{base.version}"',
        f'tag = "{base.tag}"',
        f'sdist = "{base.sdist}"',
        f'sha256 = "{base.sha256}"',
        "# From the sdist's vllm/_version.py (or the checkout's commit).",
        f'upstream_commit = "{base.upstream_commit}"',
        "",
    ]
    env = old.folder / "pin.toml"
    text = env.read_text() if env.is_file() else ""
    at = text.find("[environment]")
    if at >= 0:
        lines.append(
            f"# Copied from patches/{old.name}/pin.toml by `rebase`: review it for this base."
        )
        lines.append(text[at:].rstrip("\n"))
    return "\n".join(lines) + "\n"


# --- state --------------------------------------------------------------------


@dataclass
class Step:
    patch: str
    commit: str  # the patch as a commit of the old series, fetched into the new tree
    outcome: str = ""
    detail: str = ""


@dataclass
class State:
    old: str
    new: dict[str, str]  # the new base's pin fields and folder name
    environment: dict[str, list[str] | str]
    tree: str
    source: str = ""
    steps: list[Step] = field(default_factory=list)
    stopped_head: str = ""  # HEAD before the step that is under way
    stopped: bool = False  # that step stopped at a conflict (else: interrupted)

    def new_base(self, root: Path) -> Base:
        env = self.environment
        return Base(
            folder=root / "patches" / self.new["name"],
            environment=Environment(
                torch=str(env["torch"]),
                requirements=tuple(env["requirements"]),
                extra=tuple(env["extra"]),
            ),
            **self.new,
        )


def state_path(tree: Path) -> Path:
    return tree / git(tree, "rev-parse", "--git-dir").stdout.strip() / STATE_FILE


def save(state: State) -> None:
    tree = Path(state.tree)
    path = state_path(tree)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(state), indent=1))
    tmp.replace(path)


def load(tree: Path) -> State:
    path = state_path(tree) if gitutil.is_git_tree(tree) else None
    if path is None or not path.is_file():
        raise ForkError(
            f"no rebase in progress in {tree}", "Start one with `rebase --onto vX.Y.Z`."
        )
    data = json.loads(path.read_text())
    data["steps"] = [Step(**s) for s in data["steps"]]
    return State(**data)


def pointer(root: Path) -> Path:
    return root / ".fork" / POINTER


def tree_in_progress(root: Path, fork_arg: str | None) -> Path:
    if fork_arg:
        return Path(fork_arg).resolve()
    if pointer(root).is_file():
        return Path(pointer(root).read_text().strip())
    raise ForkError(
        "no rebase in progress", "Start one with `rebase --onto vX.Y.Z` (or pass --fork)."
    )


# --- the run ----------------------------------------------------------------------


def start(
    root: Path, old: Base, new: Base, tree: Path, cache: Path, log, checkout: Path | None
) -> State:
    """Build the new base at `tree`, bring the old series' commits into it, and go."""
    if pointer(root).is_file():
        raise ForkError(
            f"a rebase is already in progress in {pointer(root).read_text().strip()}",
            "Finish it with `rebase --continue`, or `rebase --abort` it.",
        )
    if tree.exists():
        raise ForkError(f"{tree} already exists", "Move it away, or pass --fork <new folder>.")
    if (new.folder / "pin.toml").exists():
        raise ForkError(
            f"patches/{new.name}/ already exists",
            f"The queue for {new.name} is there: build it with `--base {new.name} build`,"
            " or remove the folder.",
        )
    if not old.series():
        raise ForkError(f"patches/{old.name}/ has no patches to move")
    tree.parent.mkdir(parents=True, exist_ok=True)
    pointer(root).parent.mkdir(parents=True, exist_ok=True)
    pointer(root).write_text(f"{tree}\n")
    try:
        fork.materialize_base(new, tree, cache, log, checkout)
        with tempfile.TemporaryDirectory(prefix="vllm-fork-old-") as tmp:
            old_tree = Path(tmp) / "tree"
            log(f"building {old.name} with its series (the merge base of every 3-way pick)")
            fork.materialize_base(old, old_tree, cache, log)
            fork.apply_series(old_tree, old.patch_paths(), log)
            git(tree, "fetch", "-q", "--no-tags", str(old_tree), f"+HEAD:{OLD_REF}")
        n = len(old.series())
        commits = git(tree, "rev-list", "--reverse", f"{OLD_REF}~{n}..{OLD_REF}").stdout.split()
        env = old.environment
        state = State(
            old=old.name,
            new={
                k: getattr(new, k)
                for k in ("name", "version", "tag", "sdist", "sha256", "upstream_commit")
            },
            environment={
                "torch": env.torch,
                "requirements": list(env.requirements),
                "extra": list(env.extra),
            },
            tree=str(tree),
            source=str(checkout.resolve()) if checkout else "",
            steps=[Step(name, commit) for name, commit in zip(old.series(), commits)],
        )
        save(state)
    except BaseException:
        abort(root, tree, log)
        raise
    return state


def proceed(root: Path, old: Base, state: State, log) -> list[Step]:
    """Move the remaining patches; stop (raise) at a conflict; finish at the end."""
    tree = Path(state.tree)
    new = state.new_base(root)
    todo = [s for s in state.steps if not s.outcome]
    for i, step in enumerate(todo, start=len(state.steps) - len(todo) + 1):
        log(f"[{i}/{len(state.steps)}] {step.patch}")
        state.stopped_head, state.stopped = git(tree, "rev-parse", "HEAD").stdout.strip(), False
        save(state)
        step.outcome, step.detail = move_one(tree, old.folder / step.patch, step.commit, new)
        log(f"  {step.outcome or 'conflict'}")
        if not step.outcome:
            state.stopped = True
            save(state)
            raise ForkError(
                f"patch {step.patch} conflicts with {new.name}: {step.detail} ({tree})",
                f"Resolve it in {tree}: edit the files, `git add` them and commit "
                "(`git cherry-pick --continue`); then `vllm-fork rebase --continue`.\n"
                "`vllm-fork rebase --skip` drops this patch; `vllm-fork rebase --abort` "
                "removes the new tree and writes nothing.",
            )
        save(state)
    return finish(root, old, state, log)


def move_one(tree: Path, patch_path: Path, commit: str, new: Base) -> tuple[str, str]:
    """(outcome, detail) of one patch; ("", where) when it stops at a conflict."""
    patch = parse_patch(patch_path)
    forward = git(tree, "apply", "--check", str(patch_path), check=False)
    if forward.returncode == 0:
        fork.am(tree, patch_path)
        return "applied clean", ""
    if git(tree, "apply", "--check", "--reverse", str(patch_path), check=False).returncode == 0:
        return "already upstream", "its change is already present"
    since = fork.backported_from(patch)
    if (
        since
        and new.version[:1].isdigit()
        and fork.version_key(since) <= fork.version_key(new.version)
    ):
        return "already upstream", f"backport from v{since}"
    where = describe_failure(patch, forward.stderr)
    pick = git(tree, "cherry-pick", "--keep-redundant-commits", commit, check=False)
    if pick.returncode == 0:
        if git(tree, "diff", "--quiet", "HEAD~1", "HEAD", check=False).returncode == 0:
            git(tree, "reset", "-q", "--hard", "HEAD~1")
            return "already upstream", "3-way merge leaves no change"
        return "applied 3-way", f"zero-fuzz: {where}"
    unmerged = git(tree, "diff", "--name-only", "--diff-filter=U").stdout.split()
    if not unmerged and in_progress(tree) == "a cherry-pick":
        git(tree, "cherry-pick", "--abort", check=False)
        return "already upstream", "3-way merge leaves no change"
    files = f"; conflicts in {', '.join(unmerged)}" if unmerged else ""
    return "", f"{where}{files}"


def resume(root: Path, old: Base, tree: Path, log, skip: bool = False) -> list[Step]:
    """After the user resolved (and committed) the conflict, or to drop the patch."""
    state = load(tree)
    step = next(s for s in state.steps if not s.outcome)
    busy = in_progress(tree)
    if not state.stopped:
        # The run was interrupted in the middle of this step: undo its half
        # and do it again (or drop it).
        git(tree, "am", "--abort", check=False)
        git(tree, "cherry-pick", "--abort", check=False)
        git(tree, "reset", "-q", "--hard", state.stopped_head)
        if skip:
            step.outcome, step.detail = "dropped", "skipped with --skip"
        save(state)
        return proceed(root, old, state, log)
    if skip:
        if busy == "a cherry-pick":
            git(tree, "cherry-pick", "--abort")
        git(tree, "reset", "-q", "--hard", state.stopped_head)
        step.outcome, step.detail = "dropped", "skipped with --skip"
    else:
        if busy == "a cherry-pick":
            unmerged = git(tree, "diff", "--name-only", "--diff-filter=U").stdout.split()
            if unmerged:
                raise ForkError(
                    f"{step.patch}: conflicts remain in {', '.join(unmerged)} ({tree})",
                    "Edit them, `git add` them, then `vllm-fork rebase --continue`.",
                )
            if git(tree, "diff", "--cached", "--quiet", check=False).returncode == 0:
                git(tree, "cherry-pick", "--abort")
            else:
                git(tree, "-c", "core.editor=true", "cherry-pick", "--continue")
        elif busy:
            raise ForkError(f"{busy} is in progress in {tree}", "Finish or abort it first.")
        dirty = gitutil.is_dirty(tree)
        if dirty:
            raise ForkError(
                f"{tree} has uncommitted changes",
                dirty.rstrip()
                + "\nCommit the resolution (or discard it), then `rebase --continue`.",
            )
        head = git(tree, "rev-parse", "HEAD").stdout.strip()
        if head == state.stopped_head:
            step.outcome, step.detail = "dropped", "resolved to no change"
        else:
            step.outcome, step.detail = "resolved by hand", step.detail
    save(state)
    return proceed(root, old, state, log)


def finish(root: Path, old: Base, state: State, log) -> list[Step]:
    """Write patches/<new base>/ from the new tree; forget the rebase."""
    tree = Path(state.tree)
    new = state.new_base(root)
    new.folder.mkdir(parents=True, exist_ok=True)
    (new.folder / "pin.toml").write_text(render_pin(new, old, state.source))
    new.series_path.write_text(
        f"# Patches against vLLM {new.version}, in order. One file name a line.\n"
        f"# Moved from patches/{old.name}/ by `vllm-fork rebase`.\n"
    )
    fork.export(new, tree, log)
    git(tree, "update-ref", "-d", OLD_REF, check=False)
    state_path(tree).unlink(missing_ok=True)
    pointer(root).unlink(missing_ok=True)
    return state.steps


def abort(root: Path, tree: Path, log) -> None:
    """Back to where the rebase started: no new tree, nothing written."""
    ours = pointer(root).is_file() and Path(pointer(root).read_text().strip()) == tree
    if not ours:
        load(tree)  # raises unless `tree` holds a rebase's state
    if tree.exists():
        fork.remove_tree(tree)
        log(f"removed {tree}")
    if ours:
        pointer(root).unlink()
