"""The guards of tests/conftest.py: an unmarked test cannot reach the kernel, and the tests that do
reach it share one parallel worker."""

from __future__ import annotations

import socket

import pytest

from tests.conftest import OpensTheKernel


def test_an_unmarked_test_that_binds_a_socket_fails_saying_to_mark_it() -> None:
    with socket.socket() as sock, pytest.raises(OpensTheKernel, match=r"pytest\.mark\.net"):
        sock.bind(("127.0.0.1", 0))


def test_an_unmarked_test_spreads_over_the_workers(request: pytest.FixtureRequest) -> None:
    assert request.node.get_closest_marker("xdist_group") is None


@pytest.mark.net
def test_the_tests_marked_net_run_on_one_worker(request: pytest.FixtureRequest) -> None:
    group = request.node.get_closest_marker("xdist_group")
    assert group is not None and group.args == ("kernel",)
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))  # and may reach the kernel
