"""Getting upstream vLLM: the pinned release sdist by package name, or a checkout.

The sdist is found through pip's own configuration (PIP_INDEX_URL /
PIP_EXTRA_INDEX_URL, pip.conf's index-url and extra-index-url, PIP_CERT / cert;
else pip's default index, asked from pip) with the simple repository API
(PEP 691 JSON, or PEP 503 HTML for file:// indexes), then checked against the
pin's sha256. `pip download` cannot
be used: it runs vLLM's setup.py, which needs torch and its build deps, and
with VLLM_TARGET_DEVICE=empty it rejects the `+empty` local version.
"""

from __future__ import annotations

import functools
import hashlib
import html.parser
import json
import os
import shutil
import ssl
import subprocess
import sys
import tarfile
import tempfile
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from vllm_fork.bases import Base
from vllm_fork.errors import ForkError, NetworkError

SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"


def _pip_config() -> dict[str, str]:
    """pip's configuration files as `pip config list` shows them (key -> value)."""
    try:
        out = subprocess.run(
            [sys.executable, "-m", "pip", "config", "list"],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    config = {}
    for line in out.splitlines():
        key, _, value = line.partition("=")
        config[key.strip()] = value.strip().strip("'\"")
    return config


def _pip_setting(config: dict[str, str], name: str) -> str | None:
    """A setting as pip reads it: its environment variable, then any section."""
    env = os.environ.get("PIP_" + name.upper().replace("-", "_"))
    if env:
        return env
    for key, value in config.items():
        if key.endswith("." + name):
            return value
    return None


def _pip_default_index() -> str:
    """pip's built-in index, asked from pip itself: this tool names no index host."""
    code = "from pip._internal.models.index import PyPI; print(PyPI.simple_url)"
    try:
        out = subprocess.run(
            [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60
        ).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        out = ""
    if not out:
        raise NetworkError(
            "pip has no index configured and its default could not be read",
            "Set PIP_INDEX_URL or index-url in pip.conf (pip config set global.index-url URL).",
        )
    return out


def configured_indexes() -> list[str]:
    """pip's index-url then extra-index-urls, as pip itself would use them
    (environment first, then pip.conf), else pip's own default index."""
    config = _pip_config()
    index = _pip_setting(config, "index-url")
    extras = (_pip_setting(config, "extra-index-url") or "").split()
    return [index or _pip_default_index(), *extras]


@functools.cache
def _ssl_context() -> ssl.SSLContext:
    """Certificates as pip is configured to trust them (PIP_CERT / cert in pip.conf)."""
    return ssl.create_default_context(cafile=_pip_setting(_pip_config(), "cert"))


def _open(request: urllib.request.Request | str, timeout: int):
    url = request.full_url if isinstance(request, urllib.request.Request) else request
    if url.startswith("https:"):
        return urllib.request.urlopen(request, timeout=timeout, context=_ssl_context())
    return urllib.request.urlopen(request, timeout=timeout)


class _Links(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str]] = []
        self._href: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._href = dict(attrs).get("href")

    def handle_data(self, data: str) -> None:
        if self._href is not None:
            self.links.append((data.strip(), self._href))
            self._href = None


def find_sdist_url(index: str, filename: str) -> tuple[str, str | None]:
    """URL and index-declared sha256 of `filename` in `index`'s vllm page."""
    page = index.rstrip("/") + "/vllm/"
    request = urllib.request.Request(page, headers={"Accept": f"{SIMPLE_JSON}, text/html"})
    try:
        with _open(request, timeout=60) as response:
            body = response.read()
            ctype = response.headers.get("Content-Type", "") if hasattr(response, "headers") else ""
    except (urllib.error.URLError, OSError, ValueError) as exc:
        if page.startswith("file:"):
            local = Path(urllib.parse.urlparse(page).path)
            local = local / "index.html"
            if local.is_file():
                body, ctype = local.read_bytes(), "text/html"
            else:
                raise NetworkError(f"package index {index} has no vllm page") from exc
        else:
            raise NetworkError(
                f"could not reach the package index {index}: {getattr(exc, 'reason', exc)}"
            ) from exc
    if SIMPLE_JSON in (ctype or ""):
        for entry in json.loads(body)["files"]:
            if entry["filename"] == filename:
                return entry["url"], entry.get("hashes", {}).get("sha256")
        return "", None
    parser = _Links()
    parser.feed(body.decode("utf-8", errors="replace"))
    for text, href in parser.links:
        url = urllib.parse.urljoin(page, href)
        name = urllib.parse.urlparse(url).path.rsplit("/", 1)[-1]
        if filename in (text, name):
            fragment = urllib.parse.urlparse(url).fragment
            sha = fragment.split("=", 1)[1] if fragment.startswith("sha256=") else None
            return url.split("#", 1)[0], sha
    return "", None


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _download(url: str, dest: Path, log) -> None:
    tmp = dest.with_suffix(dest.suffix + ".part")
    try:
        with _open(url, timeout=120) as response, tmp.open("wb") as out:
            total = int(response.headers.get("Content-Length") or 0)
            done, shown = 0, -10
            for chunk in iter(lambda: response.read(1 << 20), b""):
                out.write(chunk)
                done += len(chunk)
                if total and done * 100 // total >= shown + 10:
                    shown = done * 100 // total
                    log(f"  downloading {dest.name}: {shown}% of {total / 2**20:.0f} MiB")
    except (urllib.error.URLError, OSError) as exc:
        tmp.unlink(missing_ok=True)
        raise NetworkError(
            f"download of {url} failed: {getattr(exc, 'reason', exc)}",
            "Check the network, or put the file into the cache by hand.",
        ) from exc
    tmp.replace(dest)


def fetch_sdist(base: Base, cache_dir: Path, log) -> Path:
    """The pinned sdist from the cache, else from the index; sha256-verified."""
    cached = cache_dir / "sdists" / base.sha256 / base.sdist
    if cached.is_file():
        if sha256_of(cached) == base.sha256:
            log(f"using cached {cached}")
            return cached
        cached.unlink()
    cached.parent.mkdir(parents=True, exist_ok=True)
    errors = []
    for index in configured_indexes():
        try:
            url, index_sha = find_sdist_url(index, base.sdist)
        except NetworkError as exc:
            errors.append(str(exc))
            continue
        if not url:
            errors.append(f"{index} has no {base.sdist}")
            continue
        if index_sha and index_sha != base.sha256:
            raise ForkError(
                f"{index} lists {base.sdist} with sha256 {index_sha}, "
                f"but the pin says {base.sha256}",
                "Refusing to use it. If the release was re-uploaded, review it and "
                f"update {base.folder / 'pin.toml'}.",
            )
        log(f"fetching {base.sdist} from {index}")
        _download(url, cached, log)
        actual = sha256_of(cached)
        if actual != base.sha256:
            cached.unlink()
            raise ForkError(
                f"sha256 mismatch for {base.sdist}: got {actual}, pin says {base.sha256}",
                "Refusing to use it; nothing was cached.",
            )
        return cached
    raise NetworkError(
        f"could not get {base.sdist}: " + "; ".join(errors),
        f"Nothing is cached at {cached}. Check the network or pip's index settings.",
    )


def extract_sdist(sdist: Path, dest: Path) -> None:
    """Unpack the sdist's single top folder into `dest`."""
    with tarfile.open(sdist) as tar, tempfile.TemporaryDirectory(dir=dest.parent) as tmp:
        tar.extractall(tmp, filter="data")
        tops = list(Path(tmp).iterdir())
        if len(tops) != 1 or not tops[0].is_dir():
            raise ForkError(f"{sdist.name}: expected one top-level folder")
        shutil.move(str(tops[0]), dest)
