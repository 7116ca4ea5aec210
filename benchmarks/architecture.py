"""The figures of issue 20's "done when", for any checkout of this project (before and after).

Run: ``python benchmarks/architecture.py [ROOT] [--run]``. ROOT (default: this repository) is
any checkout, an old one too (``git worktree add --detach /tmp/before REV``). Printed:

- the largest classes of ``p2p/`` (lines);
- the tests that feed the duel's machine events (``tests/test_p2p_duel_machine.py``);
- cli: the imports of ``cli.commands`` from ``cli/app``, the largest files;
- private attributes of other libraries: assigned, and read (``module._name``);
- the interop peer (``tests/interop_peer.py``) and the tests that play it.

With ``--run`` the tree's whole suite runs once (some minutes) under a recorder loaded into
pytest (``-p architecture``) that notes, for each test, whether it bound or connected an
internet socket or started a process, whether it is marked ``net``, its time and outcome:

- the network-side tests (in files that import ``p2p``) that opened a socket or a process;
- the everyday loop, the tests not marked ``net``: how many of the suite, their time summed;
  where the tree has no ``net`` marker that loop is the whole suite; and the wall time of
  ``pytest -m "not net"`` run once more as a developer runs it (in parallel where the tree does).
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LOG_VARIABLE = "ARCHITECTURE_LOG"
"""Where the recorder, loaded into the tree's pytest, appends one JSON line a test."""


# ------------------------------------------------------------------ read from the files


def python_files(root: Path, folder: str) -> list[Path]:
    return sorted((root / folder).rglob("*.py"))


def parsed(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), str(path))


def largest_classes(root: Path, count: int = 5) -> list[tuple[int, str]]:
    """The ``count`` longest classes of ``p2p/``: (lines, ``file:Class``)."""
    sizes = [
        (node.end_lineno - node.lineno + 1, f"{path.relative_to(root)}:{node.name}")
        for path in python_files(root, "p2p")
        for node in ast.walk(parsed(path))
        if isinstance(node, ast.ClassDef) and node.end_lineno is not None
    ]
    return sorted(sizes, reverse=True)[:count]


def largest_files(root: Path, folder: str, count: int = 5) -> list[tuple[int, str]]:
    sizes = [(len(path.read_text(encoding="utf-8").splitlines()), str(path.relative_to(root)))
             for path in python_files(root, folder)]  # fmt: skip
    return sorted(sizes, reverse=True)[:count]


def imported_modules(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def imports_of(root: Path, folder: str, prefix: str) -> list[str]:
    """The import statements of ``folder`` that take a module under ``prefix`` (``file:line``)."""
    return sorted(
        f"{path.relative_to(root)}:{node.lineno}"
        for path in python_files(root, folder)
        for node in ast.walk(parsed(path))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and any(module == prefix or module.startswith(prefix + ".") for module in imported_modules(node))
    )


OURS = ("engine", "p2p", "cli", "tests", "benchmarks")


def foreign_names(tree: ast.Module) -> dict[str, str]:
    """The names a module binds to another library's modules or objects: name → what it is."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[(alias.asname or alias.name).split(".")[0]] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return {name: what for name, what in names.items() if what.split(".")[0] not in OURS}


def private_uses(root: Path) -> tuple[list[str], list[str]]:
    """Private attributes (``_name``, not dunders) of other libraries in engine/, p2p/ and cli/:
    those assigned (``module._name = …``, ``setattr``) and those read; ``file:line module._name``."""
    assigned: list[str] = []
    read: list[str] = []
    for folder in ("engine", "p2p", "cli"):
        for path in python_files(root, folder):
            tree = parsed(path)
            foreign = foreign_names(tree)
            stores = {id(node.targets[0]) for node in ast.walk(tree)
                      if isinstance(node, ast.Assign) and len(node.targets) == 1}  # fmt: skip
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
                    target = node.args[0] if node.args else None
                    name = node.args[1] if len(node.args) > 1 else None
                    if (isinstance(target, ast.Name) and target.id in foreign and isinstance(name, ast.Constant)
                            and str(name.value).startswith("_")):  # fmt: skip
                        assigned.append(f"{path.relative_to(root)}:{node.lineno} setattr({target.id}, {name.value!r})")
                if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
                    continue
                private = node.attr.startswith("_") and not node.attr.startswith("__")
                if not private or node.value.id not in foreign:
                    continue
                where = f"{path.relative_to(root)}:{node.lineno} {node.value.id}.{node.attr}"
                stored = isinstance(node.ctx, ast.Store) or id(node) in stores
                (assigned if stored else read).append(where)
    return assigned, read


def machine_tests(root: Path) -> int:
    """The tests of ``tests/test_p2p_duel_machine.py`` (0 where it does not exist)."""
    path = root / "tests" / "test_p2p_duel_machine.py"
    if not path.exists():
        return 0
    return sum(isinstance(node, ast.FunctionDef) and node.name.startswith("test_") for node in parsed(path).body)


def network_side(root: Path) -> set[str]:
    """The test files that import ``p2p``: the network side of the suite (paths from ROOT)."""
    return {
        str(path.relative_to(root))
        for path in sorted((root / "tests").glob("test_*.py"))
        if any(module == "p2p" or module.startswith("p2p.") for module in imported_modules(parsed(path)))
    }


def interop_tests(root: Path) -> list[str]:
    """The test files that use ``tests/interop_peer.py``."""
    if not (root / "tests" / "interop_peer.py").exists():
        return []
    return sorted(str(path.relative_to(root)) for path in (root / "tests").glob("test_*.py")
                  if "interop_peer" in path.read_text(encoding="utf-8"))  # fmt: skip


# ------------------------------------------------------------------ the recorder, inside pytest

_current: dict[str, bool] = {"opened": False, "failed": False}
_seconds = [0.0]
"""The test's time so far: its setup, call and teardown."""


def _noting(original: Callable[..., Any], internet_only: bool) -> Callable[..., Any]:
    def noted(self: Any, *args: Any, **kwargs: Any) -> Any:
        if not internet_only or getattr(self, "family", None) in (socket.AF_INET, socket.AF_INET6):
            _current["opened"] = True
        return original(self, *args, **kwargs)

    return noted


def pytest_configure(config: Any) -> None:
    """Loaded by ``-p architecture``: note every bind, connect and process start."""
    if LOG_VARIABLE not in os.environ:
        return
    for name in ("bind", "connect", "connect_ex"):
        setattr(socket.socket, name, _noting(getattr(socket.socket, name), True))
    subprocess.Popen.__init__ = _noting(subprocess.Popen.__init__, False)  # type: ignore[method-assign]


def pytest_runtest_logreport(report: Any) -> None:
    """One line a test, after its teardown: marked ``net``, opened the kernel, time, outcome."""
    if LOG_VARIABLE not in os.environ:
        return
    if report.when == "setup":
        _current.update(opened=False, failed=False)
        _seconds[0] = 0.0
    _current["failed"] = _current["failed"] or report.failed
    _seconds[0] += report.duration
    if report.when != "teardown":
        return
    line = {"id": report.nodeid, "net": "net" in report.keywords, "opened": _current["opened"],
            "seconds": _seconds[0], "failed": _current["failed"]}  # fmt: skip
    with open(os.environ[LOG_VARIABLE], "a", encoding="utf-8") as log:
        log.write(json.dumps(line) + "\n")


def in_parallel(root: Path) -> bool:
    """Whether the tree's suite runs under pytest-xdist (its pyproject says ``-n``)."""
    return "xdist" in (root / "pyproject.toml").read_text(encoding="utf-8")


def timed_pytest(root: Path, *arguments: str, environment: dict[str, str] | None = None) -> float:
    """The wall time of ``pytest ARGUMENTS`` run in the tree (its output dropped)."""
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *arguments], cwd=root,
                   env=environment or {**os.environ, "PYTHONPATH": str(root)}, stdout=subprocess.DEVNULL,
                   check=False)  # fmt: skip
    return time.monotonic() - start


def recorded_run(root: Path) -> tuple[list[dict[str, Any]], float]:
    """The tree's whole suite under the recorder: its lines, and the run's wall time. The recorder
    runs in one process (``-n 0`` where the tree runs in parallel) so that it sees each test alone."""
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "tests.jsonl"
        environment = {**os.environ, LOG_VARIABLE: str(log), "PYTHONPATH": f"{root}{os.pathsep}{HERE}"}
        serial = ["-n", "0"] if in_parallel(root) else []
        wall = timed_pytest(root, "-p", "architecture", *serial, environment=environment)
        lines = [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []
    return lines, wall


# ------------------------------------------------------------------ the report


def share(part: int, whole: int) -> str:
    return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "0/0"


def report_run(root: Path) -> None:
    lines, wall = recorded_run(root)
    network = network_side(root)
    side = [line for line in lines if line["id"].split("::")[0] in network]
    print(f"\nthe whole suite: {len(lines)} tests, {wall:.0f} s wall, {sum(line['failed'] for line in lines)} failed")
    print(f"network-side tests (files importing p2p) that opened a socket or a process: "
          f"{share(sum(line['opened'] for line in side), len(side))}")  # fmt: skip
    print(f"  marked net: {share(sum(line['net'] for line in side), len(side))}")
    everyday = [line for line in lines if not line["net"]]
    print(f"the everyday loop (not marked net): {share(len(everyday), len(lines))} of the suite, "
          f"{sum(line['seconds'] for line in everyday):.0f} s of test time summed; "
          f"opened the kernel: {sum(line['opened'] for line in everyday)}")  # fmt: skip
    print(f"  `pytest -m \"not net\"` as a developer runs it: {timed_pytest(root, '-m', 'not net'):.0f} s wall")
    interop = [line for line in lines if "interop" in line["id"]]
    print(f"interop tests: {len(interop)}, failed {sum(line['failed'] for line in interop)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("root", nargs="?", type=Path, default=HERE.parent, help="a checkout (default: this one)")
    parser.add_argument("--run", action="store_true", help="run the tree's suite under the recorder (minutes)")
    args = parser.parse_args()
    root: Path = args.root.resolve()
    print(f"tree: {root}")
    print("largest classes of p2p/ (lines):")
    for lines, name in largest_classes(root):
        print(f"  {lines:5d} {name}")
    print(f"tests feeding the duel's machine events: {machine_tests(root)}")
    print(f"cli/app importing cli.commands: {len(imports_of(root, 'cli/app', 'cli.commands'))}")
    for line in imports_of(root, "cli/app", "cli.commands"):
        print(f"  {line}")
    print("largest files of cli/ (lines):")
    for lines, name in largest_files(root, "cli"):
        print(f"  {lines:5d} {name}")
    assigned, read = private_uses(root)
    print(f"private attributes of other libraries assigned: {len(assigned)}")
    for where in assigned:
        print(f"  {where}")
    print(f"read: {len(read)}")
    for where in read:
        print(f"  {where}")
    print(f"interop peer: {', '.join(interop_tests(root)) or 'none'}")
    if args.run:
        report_run(root)


if __name__ == "__main__":
    main()
