"""The sdist is fetched through pip's own configuration: a local file:// index
named by PIP_INDEX_URL or by index-url in a pip.conf, holding a synthetic sdist."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Queue
from vllm_fork import source
from vllm_fork.bases import load_base
from vllm_fork.errors import ForkError


def fetch(queue: Queue) -> tuple[Path, list[str]]:
    lines: list[str] = []
    path = source.fetch_sdist(load_base(queue.root, "v1.0.0"), queue.cache, lines.append)
    return path, lines


def test_pip_index_url_serves_the_sdist(queue: Queue) -> None:
    assert source.configured_indexes() == [queue.index.as_uri()]
    path, lines = fetch(queue)
    assert path.read_bytes() == queue.sdist.read_bytes()
    assert lines[0] == f"fetching vllm-1.0.0.tar.gz from {queue.index.as_uri()}"
    assert fetch(queue)[1] == [f"using cached {path}"]


def test_index_url_in_pip_conf_serves_the_sdist(
    queue: Queue, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    conf = tmp_path / "pip.conf"
    conf.write_text(f"[global]\nindex-url = {queue.index.as_uri()}\n")
    monkeypatch.delenv("PIP_INDEX_URL")
    monkeypatch.setenv("PIP_CONFIG_FILE", str(conf))
    assert source.configured_indexes() == [queue.index.as_uri()]
    assert fetch(queue)[0].read_bytes() == queue.sdist.read_bytes()


def test_extra_index_is_tried_after_the_index(
    queue: Queue, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    empty = tmp_path / "empty"
    (empty / "vllm").mkdir(parents=True)
    (empty / "vllm" / "index.html").write_text("<html><body></body></html>\n")
    monkeypatch.setenv("PIP_INDEX_URL", empty.as_uri())
    monkeypatch.setenv("PIP_EXTRA_INDEX_URL", queue.index.as_uri())
    assert fetch(queue)[1][0] == f"fetching vllm-1.0.0.tar.gz from {queue.index.as_uri()}"


def test_a_tampered_sdist_on_the_index_is_refused(queue: Queue) -> None:
    queue.sdist.write_bytes(queue.sdist.read_bytes() + b"tampered")
    with pytest.raises(ForkError, match="sha256"):
        fetch(queue)
    assert not list(queue.cache.rglob("*.tar.gz"))
