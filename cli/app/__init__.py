"""The full-screen game, built like prompt_toolkit's own applications.

- :mod:`cli.app.opponent` — the interface the game drives an opponent through
  (:class:`~cli.app.opponent.Opponent`); :mod:`cli.app.ai_opponent` is the AI.
- :mod:`cli.app.score` — a series of games: score and who deals next.
- :mod:`cli.app.flow` — the game flow: the match and the game, no prompt_toolkit, no disk.
- :mod:`cli.app.move_line` — the move line: questions, picking, the highlight, reading moves.
- :mod:`cli.app.saving`, :mod:`cli.app.chat`, :mod:`cli.app.help_view` — saving, the chat,
  the help screen's scrolling.
- :mod:`cli.app.screen` — the state object made of those parts: what the screen
  shows, and every action a key can trigger.
- :mod:`cli.app.board` — the board as formatted text (hands, pile, history).
- :mod:`cli.app.layout`, :mod:`cli.app.keys`, :mod:`cli.app.style` — the
  prompt_toolkit layout, key bindings and colours.
- :mod:`cli.app.application` — puts them together into an ``Application``.
- :mod:`cli.app.replay` — the viewer of ``trumps replay``.
"""
