"""The wheel's build hook: the AI's search compiled to C with mypyc, where the machine can.

The compiled modules are the same source, so they make the same searches node for node: the
same moves, proofs and node counts under a node budget (tests/test_ai_compiled.py checks that on
the built wheel), about twice as fast a node (docs/ai.md, "The compiled search"). A machine without a C compiler or Python's headers gets the pure
Python wheel, which works the same, only slower; an editable install (``pip install -e``) is
always pure, so that an edit to the source takes effect at once.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

COMPILED = (
    "engine/ai/board.py",
    "engine/ai/evaluation.py",
    "engine/ai/greedy.py",
    "engine/ai/proof.py",
    "engine/ai/search.py",
)
"""The search's hot modules; the rest of the program gains nothing measurable from compiling."""


class CompiledSearchHook(BuildHookInterface):
    """Adds the compiled modules to a standard wheel (and makes it a platform wheel)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        try:
            built = compile_search(Path(self.root), Path(self.directory) / "mypyc")
        except (Exception, SystemExit) as error:  # mypyc reports a failure with SystemExit
            self.app.display_warning(f"the search stays pure Python (slower, the same moves): {error}")
            return
        build_data["force_include"].update(built)
        build_data["pure_python"] = False
        build_data["infer_tag"] = True


def compile_search(project: Path, out: Path) -> dict[str, str]:
    """Compile :data:`COMPILED` of ``project`` into ``out``: each compiled file mapped to its path in
    the wheel. Raises when the machine cannot."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    with tempfile.TemporaryDirectory() as scratch:
        here = Path.cwd()
        os.chdir(project)  # mypy names the modules from the project's root and reads its settings there
        try:
            extensions = mypycify(
                ["--cache-dir", str(Path(scratch) / "mypy"), *COMPILED], target_dir=str(Path(scratch) / "c")
            )
            build = Distribution({"ext_modules": extensions}).get_command_obj("build_ext")
            build.build_lib = str(out)
            build.build_temp = str(Path(scratch) / "objects")
            build.ensure_finalized()
            build.run()
        finally:
            os.chdir(here)
    built = {str(path): path.relative_to(out).as_posix() for path in sorted([*out.rglob("*.so"), *out.rglob("*.pyd")])}
    if not built:
        raise RuntimeError("mypyc built nothing")
    return built
