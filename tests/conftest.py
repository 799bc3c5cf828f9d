"""Fixtures: a synthetic upstream release served from a file:// package index."""

from __future__ import annotations

import hashlib
import os
import subprocess
import tarfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

UPSTREAM_FILES = {
    ".gitignore": "/vllm/_version.py\n*.egg-info/\n",
    "vllm/__init__.py": '"""Synthetic vLLM."""\n',
    "vllm/_version.py": "__version__ = version = '1.0.0'\n",
    "tests/kernels/test_gpu_only.py": "def test_gpu() -> None:\n    raise AssertionError('needs a GPU')\n",
    "vllm/gpu_only.py": 'raise RuntimeError("Found no GPU")\n',
    "vllm/attn.py": "".join(f"LINE_{i} = {i}\n" for i in range(1, 41)),
    "vllm/page.py": textwrap.dedent(
        """\
        def page_size(tokens: int, alignment: int = 16) -> int:
            return -(-tokens // alignment) * alignment
        """
    ),
}
IDENTITY = {
    "GIT_AUTHOR_NAME": "Dev One",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z",
    "GIT_COMMITTER_NAME": "Dev One",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
    "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z",
}


def run_git(cwd: Path, *args: str) -> str:
    import os

    env = dict(os.environ, **IDENTITY)
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout


def make_pin(folder: Path, version: str, sha: str, commit: str = "0123456789ab") -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pin.toml").write_text(
        f'version = "{version}"\ntag = "v{version}"\nsdist = "vllm-{version}.tar.gz"\n'
        f'sha256 = "{sha}"\nupstream_commit = "{commit}"\n'
    )
    (folder / "series").write_text(f"# Patches against vLLM {version}.\n")


@dataclass
class Queue:
    root: Path
    cache: Path
    index: Path
    sdist: Path

    def argv(self, *args: str) -> list[str]:
        return ["--repo", str(self.root), "--cache", str(self.cache), "-q", *args]

    @property
    def fork(self) -> Path:
        return self.root / ".fork" / "v1.0.0"

    @property
    def patches(self) -> Path:
        return self.root / "patches" / "v1.0.0"

    def commit(self, message: str, files: dict[str, str]) -> None:
        for name, text in files.items():
            path = self.fork / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        run_git(self.fork, "add", "-A")
        run_git(self.fork, "commit", "-q", "-m", message)


# A message that passes `upstream --lint`'s rules (the newest base's
# upstream-bound patches must, in `check --static`).
GOOD_MESSAGE = (
    "[ROCm][Kernel] {title}\n\nOverview:\nWhy: it is needed.\n\nClaims:\n"
    "| config | baseline | result | GPU | runs | command |\n|---|---|---|---|---|---|\n"
    "| page 784 | fails | passes | none (CPU) | 1 | pytest |\n\n"
    "Validation:\nIts tests pass.\n\nDetails:\nNothing left out.\n\n"
    "Upstream-Status: Pending\nSigned-off-by: Dev One <dev@example.com>\n"
)


@pytest.fixture
def queue(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Queue:
    src = tmp_path / "upstream" / "vllm-1.0.0"
    for name, text in UPSTREAM_FILES.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    index = tmp_path / "index"
    (index / "vllm").mkdir(parents=True)
    sdist = index / "vllm" / "vllm-1.0.0.tar.gz"
    with tarfile.open(sdist, "w:gz") as tar:
        tar.add(src, arcname="vllm-1.0.0")
    sha = hashlib.sha256(sdist.read_bytes()).hexdigest()
    (index / "vllm" / "index.html").write_text(
        f'<html><body><a href="vllm-1.0.0.tar.gz#sha256={sha}">vllm-1.0.0.tar.gz</a></body></html>\n'
    )
    root = tmp_path / "queue"
    make_pin(root / "patches" / "v1.0.0", "1.0.0", sha)
    # The tool fetches through pip's configuration: point pip at the file://
    # index, and keep the machine's pip.conf (a mirror, extra indexes) out.
    monkeypatch.setenv("PIP_INDEX_URL", index.as_uri())
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.delenv("PIP_EXTRA_INDEX_URL", raising=False)
    for key, value in IDENTITY.items():
        monkeypatch.setenv(key, value)
    return Queue(root=root, cache=tmp_path / "cache", index=index, sdist=sdist)
