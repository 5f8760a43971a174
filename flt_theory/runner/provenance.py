"""Provenance of a result: versions, git commit, host (per sweep) and device, dtype, threads (per point).

The git commit is that of the checkout flt_theory is imported from (``None`` for an installed
package), with ``-dirty`` appended when tracked files differ from it; it is read with
``GIT_OPTIONAL_LOCKS=0`` so that asking never writes to the repository.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

__all__ = ["git_commit", "static_provenance", "worker_provenance"]


@functools.lru_cache(maxsize=1)
def git_commit() -> str | None:
    """The commit of the flt_theory checkout (``None`` outside a git work tree or without git)."""
    here = Path(__file__).resolve().parent.parent
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}

    def git(*args: str) -> str | None:
        try:
            done = subprocess.run(
                ["git", "-C", str(here), *args], capture_output=True, text=True, timeout=10, env=env, check=False
            )
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    commit = git("rev-parse", "HEAD")
    if not commit:
        return None
    status = git("status", "--porcelain", "--untracked-files=no")
    return commit + ("-dirty" if status else "")


@functools.cache
def _version(distribution: str) -> str | None:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def static_provenance() -> dict[str, Any]:
    """What is the same for every point of a sweep run from this process."""

    return {
        "flt_version": _version("flt-theory"),
        "git_commit": git_commit(),
        "python_version": platform.python_version(),
        "torch_version": _version("torch"),
        "sympy_version": _version("sympy"),
        "numpy_version": _version("numpy"),
    }


def worker_provenance(params: dict[str, Any]) -> dict[str, Any]:
    """What the process that computed a point knows: host, device, dtype, torch threads.

    ``device``/``dtype``: the point's ``device``/``dtype`` parameters when it has them (``"auto"``
    resolved), else CUDA when torch is loaded and sees a GPU, and torch's default dtype.
    """
    torch = sys.modules.get("torch")
    device = params.get("device")
    if not isinstance(device, str) or device == "auto":
        device = "cuda" if torch is not None and torch.cuda.is_available() else "cpu"
    dtype = params.get("dtype")
    if not isinstance(dtype, str):
        dtype = str(torch.get_default_dtype()).removeprefix("torch.") if torch is not None else "float64"
    return {
        "host": platform.node(),
        "device": device,
        "dtype": dtype,
        "torch_threads": torch.get_num_threads() if torch is not None else None,
    }
