"""The ``--threads`` option the benchmarks share: torch CPU threads per process, default 1."""

from __future__ import annotations

import argparse
import os


def parse_with_threads(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """Add ``--threads`` to ``parser``, parse the command line, and apply it (``FLT_THREADS`` and torch's threads)."""
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args()
    os.environ["FLT_THREADS"] = str(args.threads)
    import torch

    torch.set_num_threads(args.threads)
    return args
