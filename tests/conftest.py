"""Shared fixtures: where the conformance vectors live, and a private home for every test."""

from __future__ import annotations

import multiprocessing.process
import os
import socket
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import ifaddr  # noqa: F401  (imported here: its import runs ldconfig, which no test should own)
import pytest

from cli import search_pool

REPO = Path(__file__).resolve().parent.parent
VECTORS = REPO / "tests" / "vectors" / "shared"
"""The repository's byte-identical copy of the conformance vectors (see tests/vectors/README.md)."""


@pytest.fixture(autouse=True)
def temporary_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """No test reads or writes the real user's files: a remembered ``--lang``, saved games or keys
    there would change what the commands print. Nor does the tester's locale choose the language:
    the tests expect English unless they ask for another (and get it back after one that asked).
    Tests that need their own set it after this."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    yield
    # A command run with --lang switches the process's language: the next test speaks English again.
    from cli import i18n

    i18n.use("en")


class OpensTheKernel(AssertionError):
    """An unmarked test reached for a socket or a process: mark it ``net`` or feed the machine instead."""


def _refused(what: str) -> Callable[..., object]:
    def refuse(*args: object, **kwargs: object) -> object:
        raise OpensTheKernel(f"this test {what} but is not marked net (pytest.mark.net)")

    return refuse


@pytest.fixture(autouse=True)
def kernel_only_for_net(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Only tests marked ``net`` open sockets or start processes: ``pytest -m "not net"`` is then
    the fast loop by construction, not by convention. (The event loop's own self-pipe is a
    ``socketpair``, which neither binds nor connects, so it is left alone.)"""
    if request.node.get_closest_marker("net") is not None:
        return
    monkeypatch.setattr(socket.socket, "bind", _refused("binds a socket"))
    monkeypatch.setattr(socket.socket, "connect", _refused("connects a socket"))
    monkeypatch.setattr(socket.socket, "connect_ex", _refused("connects a socket"))
    monkeypatch.setattr(subprocess.Popen, "__init__", _refused("starts a process"))
    monkeypatch.setattr(os, "fork", _refused("forks a process"))
    monkeypatch.setattr(os, "forkpty", _refused("forks a process"))
    monkeypatch.setattr(multiprocessing.process.BaseProcess, "start", _refused("starts a process"))
    monkeypatch.setattr(search_pool, "usable_cores", lambda: 1)  # analyses search in this process


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (``--dist loadgroup``, from pyproject) the tests that reach the kernel all
    run on one worker, one after another, as they did before the suite ran in parallel: they share
    loopback ports, namespaces and tmux, and some judge time. The rest spread over the cores."""
    for item in items:
        if item.get_closest_marker("net") is not None:
            item.add_marker(pytest.mark.xdist_group("kernel"))


@pytest.fixture
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """``os.fsync`` does nothing: for tests of screens and commands, which save the game at every
    move but test what is saved, never whether it would survive a power cut (nothing a test can
    see without one). Writes stay atomic (a temporary file, then a rename). Not for tests about
    durability: those of ``p2p.files`` and the match records keep the real fsync."""
    monkeypatch.setattr(os, "fsync", lambda fd: None)


@pytest.fixture
def quick_hints(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hint thinks 0.05 s, not the game's second: for tests that check that a hint comes and
    what it says, not how strong it is (test_cli_score checks the hint's budget)."""
    from cli.app import ai_opponent

    monkeypatch.setattr(ai_opponent, "HINT_SECONDS", 0.05)
