"""Clean virtualenvs with the built wheel installed, one per documented install.

The wheel is built once per test session (``pip wheel --no-deps``, through hatchling as a
user's ``pip install`` would); every flavour gets its own ``python -m venv`` with no pip of its
own (this interpreter's pip installs into it: ``pip --python``), using the machine's pip
configuration and cache. The installs run in parallel, started when the first test needs one,
and the directory is removed at the end of the session.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

__all__ = ["FLAVOURS", "Installed", "Installer", "Ran"]

ROOT = Path(__file__).resolve().parents[2]

FLAVOURS: Mapping[str, str] = {
    "base": "",
    "cli": "[cli]",
    "mcp-cli": "[mcp,cli]",
    "web": "[web]",
    "pydantic-ai": "[pydantic-ai]",
    "everything": "[all,integrations]",
}
"""Flavour → the extras after ``toolwire`` in ``pip install 'toolwire[...]'``."""

PIP_TIMEOUT_S = 600
RUN_TIMEOUT_S = 120


@dataclass(frozen=True, kw_only=True, slots=True)
class Ran:
    """What one command in a venv did."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    def check(self) -> Ran:
        """Itself, when it exited 0 with no traceback on either stream; else an assertion
        naming the command and showing its output."""
        shown = f"{' '.join(self.argv)}\n--- stdout\n{self.stdout[-3000:]}\n--- stderr\n"
        shown += self.stderr[-3000:]
        assert "Traceback" not in self.stderr + self.stdout, f"a traceback from {shown}"
        assert self.returncode == 0, f"exit {self.returncode} from {shown}"
        return self


@dataclass(frozen=True, kw_only=True, slots=True)
class Installed:
    """A clean venv with ``toolwire<extras>`` installed."""

    flavour: str
    prefix: Path

    @property
    def python(self) -> str:
        """The venv's interpreter."""
        return str(self.prefix / "bin" / "python")

    @property
    def toolwire(self) -> str:
        """The ``toolwire`` console script the wheel installed."""
        return str(self.prefix / "bin" / "toolwire")

    def env(self, home: Path) -> dict[str, str]:
        """The environment for a command: this venv first on ``PATH``, ``HOME`` in ``home``
        (so the secrets vault and caches are the test's), no ``TOOLWIRE_*`` from outside."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("TOOLWIRE_")}
        env.pop("VIRTUAL_ENV", None)
        env["PATH"] = f"{self.prefix / 'bin'}{os.pathsep}{env.get('PATH', '')}"
        home.mkdir(exist_ok=True)
        env["HOME"] = str(home)
        return env

    def run(self, argv: list[str], *, cwd: Path, stdin: str | None = None) -> Ran:
        """Run ``argv`` (``toolwire ...`` or ``python ...`` mean this venv's) in ``cwd``, with
        ``HOME`` in its sibling ``home``."""
        program = {"toolwire": self.toolwire, "python": self.python}.get(argv[0], argv[0])
        done = subprocess.run(
            [program, *argv[1:]],
            cwd=cwd,
            env=self.env(cwd.parent / "home"),
            input=stdin if stdin is not None else "",
            capture_output=True,
            text=True,
            timeout=RUN_TIMEOUT_S,
            check=False,
        )
        return Ran(
            argv=tuple(argv), returncode=done.returncode, stdout=done.stdout, stderr=done.stderr
        )


class Installer:
    """Builds the wheel, then installs every flavour in the background, in parallel."""

    def __init__(self, directory: Path, workers: int = 3) -> None:
        self._directory = directory
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="venv")
        self._wheel = self._build_wheel()
        self._installs: dict[str, Future[Installed]] = {
            name: self._pool.submit(self._install, name, extras)
            for name, extras in FLAVOURS.items()
        }

    @property
    def wheel(self) -> Path:
        """The built wheel."""
        return self._wheel

    def get(self, flavour: str) -> Installed:
        """The venv of ``flavour`` (waiting for its install)."""
        return self._installs[flavour].result()

    def close(self) -> None:
        """Wait for the installs still running (their files are about to be removed)."""
        self._pool.shutdown(wait=True, cancel_futures=True)

    def _build_wheel(self) -> Path:
        out = self._directory / "dist"
        _pip("wheel", "--no-deps", "--wheel-dir", str(out), str(ROOT))
        (wheel,) = out.glob("toolwire-*.whl")
        return wheel

    def _install(self, flavour: str, extras: str) -> Installed:
        prefix = self._directory / f"venv-{flavour}"
        subprocess.run(
            [sys.executable, "-m", "venv", "--without-pip", str(prefix)],
            check=True,
            capture_output=True,
            timeout=PIP_TIMEOUT_S,
        )
        _pip(
            "--python",
            str(prefix / "bin" / "python"),
            "install",
            "--no-compile",  # byte-code is written for what the tests import, not every file
            f"{self._wheel}{extras}",
        )
        return Installed(flavour=flavour, prefix=prefix)


def _pip(*args: str) -> None:
    """``python -m pip ...`` with this interpreter's pip; a failure shows pip's own output."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--quiet", "--disable-pip-version-check", *args],
        capture_output=True,
        text=True,
        timeout=PIP_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, f"pip {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}"


def installer_session() -> Iterator[Installer]:
    """An `Installer` in a temporary directory removed afterwards (a session fixture's body)."""
    with tempfile.TemporaryDirectory(prefix="toolwire-installs-") as directory:
        installer = Installer(Path(directory))
        try:
            yield installer
        finally:
            installer.close()
