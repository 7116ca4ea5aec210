"""A virtual clock for the asyncio drivers, through the event loop's public API only: a loop whose
``time()`` is the test's, moved a step at a time once the work at the current time has run, so that
a 600 s timeout fires at exactly 600 virtual seconds, at once. Only for work over the in-memory line
(no socket may have bytes on the way while the clock moves).

>>> import asyncio
>>> async def nap() -> str:
...     await asyncio.sleep(30)
...     return "up"
>>> run_in_virtual_time(nap(), horizon=60)
(30.0, 'up')
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

SETTLE = 50
"""Turns of the loop given to the work before the clock moves: a handshake over the memory line
takes a few turns per message, so the work due at one time is done well within them."""


class VirtualClockLoop(asyncio.SelectorEventLoop):
    """An event loop whose clock stands at :attr:`now` (the loop's public ``time()`` reads it, and
    every timer, ``asyncio.sleep`` and ``asyncio.timeout`` with it); nothing but the test moves it."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 0.0

    def time(self) -> float:
        """The virtual time, in seconds from the loop's start."""
        return self.now


def run_in_virtual_time(work: Coroutine[Any, Any, T], horizon: float, step: float = 1.0) -> tuple[float, T]:
    """Run ``work`` to its end on a fresh :class:`VirtualClockLoop`, moving the clock ``step``
    seconds each time the work had :data:`SETTLE` turns of the loop at the current time: the
    virtual time at which it ended, to the ``step``, and its result (its exception raised). Fails
    if it still runs after ``horizon`` virtual seconds."""
    loop = VirtualClockLoop()

    async def ticking() -> tuple[float, T]:
        task = asyncio.ensure_future(work)
        while loop.now <= horizon:
            for _ in range(SETTLE):
                if task.done():
                    return loop.now, task.result()
                await asyncio.sleep(0)
            loop.now += step
        task.cancel()
        raise AssertionError(f"the work still ran after {horizon:g} virtual seconds")

    try:
        return loop.run_until_complete(ticking())
    finally:
        loop.close()
