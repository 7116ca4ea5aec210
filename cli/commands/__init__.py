"""The ``trumps`` commands: one module each (see :mod:`cli.main` for their shape)."""
