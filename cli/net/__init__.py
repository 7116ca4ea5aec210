"""The network duel's command line: ``trumps host`` and ``trumps join``.

:mod:`~cli.net.arguments` builds their options, :mod:`~cli.net.hosting` and
:mod:`~cli.net.joining` run them, :mod:`~cli.net.continuing` finds and asks about an
unfinished match, :mod:`~cli.net.running` plays a handshaken duel to its end and sums it
up, and :mod:`~cli.net.progress` writes what happens to stderr. The interactive game plugs
in as a :data:`~cli.net.running.Play` (:func:`cli.app.duel_screen.play_duel`), chosen
by :func:`~cli.net.launch.run_command`.

Only the standard library (and :mod:`cli.i18n`) is imported at module level, so that
building the argument parser stays fast; the network and crypto code loads in ``run``.
Human-readable progress goes to stderr; stdout carries the invite line and, with
``--json``, one JSON line at the end.
"""
