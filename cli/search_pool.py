"""An analysis's searches on every core: a pool of worker processes whose ordered ``map``
:func:`engine.ai.analysis.analyze` takes. Each search starts from nothing, so the verdicts are
the same as one search after another; only the wall-clock time is shorter (docs/ai.md).
"""

from __future__ import annotations

import multiprocessing
import os
import signal
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from functools import partial

from engine.ai.search import SearchResult

Searches = Callable[..., Iterator[SearchResult]]
"""What runs an analysis's searches: ``map``, or a pool's."""


def usable_cores() -> int:
    """The cores this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1  # pragma: no cover - macOS and Windows


@contextmanager
def search_pool(workers: int | None = None) -> Iterator[Searches]:
    """A ``map`` that runs the searches on ``workers`` processes (every usable core by default),
    results in order; the builtin ``map`` on one core. Leaving the block cancels the searches not
    started (an analysis stopped half way) and waits for the running ones, which end on their
    own node budget; leaving it by an exception (Ctrl-C) waits for nothing."""
    count = usable_cores() if workers is None else workers
    if count < 2:
        yield map
        return
    # spawn, not fork: the full screen runs this beside its own threads
    pool = ProcessPoolExecutor(count, mp_context=multiprocessing.get_context("spawn"), initializer=_quiet)
    try:
        yield partial(pool.map, chunksize=1)
    except BaseException:  # Ctrl-C, an error: leave at once, the workers end on their own
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True, cancel_futures=True)  # a search at most still running


def _quiet() -> None:
    """A worker leaves Ctrl-C to the program that started it, and writes nothing to the terminal
    (an error comes back with its search's result)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.dup2(devnull, 1)
