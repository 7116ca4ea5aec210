"""The terminal client: the ``trumps`` commands and the full-screen game (:mod:`cli.app`)."""

__version__ = "0.1.0"
"""The package version, as in pyproject.toml (a test keeps them equal). Written here
because importlib.metadata alone takes longer to import than ``trumps --help`` may."""
