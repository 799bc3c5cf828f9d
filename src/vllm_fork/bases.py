"""The queue on disk: one folder per upstream base with a pin and a series.

patches/<base>/pin.toml   version, tag, sdist name, sha256, upstream commit
patches/<base>/series     patch file names in order, `#` comments allowed
patches/<base>/*.patch    `git format-patch` mbox files

Adding a base is adding such a folder; nothing here names a version.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from vllm_fork.errors import ForkError

PIN_FIELDS = ("version", "tag", "sdist", "sha256", "upstream_commit")


@dataclass(frozen=True)
class Environment:
    """How the CPU test environment of a fork is installed."""

    torch: str = "torch"
    requirements: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()


@dataclass(frozen=True)
class Base:
    name: str
    folder: Path
    version: str
    tag: str
    sdist: str
    sha256: str
    upstream_commit: str
    environment: Environment = field(default_factory=Environment)

    @property
    def series_path(self) -> Path:
        return self.folder / "series"

    def series(self) -> list[str]:
        """Patch file names in series order (comments and blanks dropped)."""
        if not self.series_path.exists():
            return []
        names = []
        for line in self.series_path.read_text().splitlines():
            entry = line.split("#", 1)[0].strip()
            if entry:
                names.append(entry)
        return names

    def patch_paths(self) -> list[Path]:
        return [self.folder / name for name in self.series()]


def find_repo_root(start: Path) -> Path:
    """The nearest folder at or above `start` that holds `patches/`."""
    for folder in (start, *start.parents):
        if (folder / "patches").is_dir():
            return folder
    raise ForkError(
        f"no patches/ folder at or above {start}",
        "Run from a checkout of the patch queue, or pass --repo PATH.",
    )


def known_bases(root: Path) -> list[str]:
    patches = root / "patches"
    return sorted(p.name for p in patches.iterdir() if (p / "pin.toml").is_file())


def load_base(root: Path, name: str) -> Base:
    folder = root / "patches" / name
    pin_path = folder / "pin.toml"
    if not pin_path.is_file():
        known = ", ".join(known_bases(root)) or "none"
        raise ForkError(
            f"unknown base {name!r}",
            f"Known bases: {known}.\nA base is a folder patches/<base>/ with a pin.toml.",
        )
    try:
        pin = tomllib.loads(pin_path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise ForkError(f"{pin_path}: not valid TOML: {exc}") from exc
    missing = [key for key in PIN_FIELDS if not isinstance(pin.get(key), str)]
    if missing:
        raise ForkError(f"{pin_path}: missing or non-string {', '.join(missing)}")
    env = pin.get("environment", {})
    return Base(
        name=name,
        folder=folder,
        environment=Environment(
            torch=env.get("torch", "torch"),
            requirements=tuple(env.get("requirements", ())),
            extra=tuple(env.get("extra", ())),
        ),
        **{key: pin[key] for key in PIN_FIELDS},
    )


def default_base(root: Path) -> str:
    """The newest known base: upstream PRs are cut from its queue."""
    bases = known_bases(root)
    if not bases:
        raise ForkError("no bases under patches/", "Add patches/<base>/pin.toml.")

    def key(name: str) -> tuple[int, ...]:
        return tuple(int(p) for p in name.lstrip("v").split(".") if p.isdigit())

    return max(bases, key=key)
