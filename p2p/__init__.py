"""The network duel: two players, one TCP connection, no server, no way to cheat.

Layers, bottom up (docs/protocol.md has the whole contract):

- :mod:`p2p.wire` — length-prefixed, strictly decoded msgpack frames;
- :mod:`p2p.messages` — every message type and its schema check;
- :mod:`p2p.channel` — :class:`~p2p.channel.Sealer` (ChaCha20-Poly1305 keys and counters,
  no I/O) and the connection that uses it;
- :mod:`p2p.handshake` — the key exchange as two sans-I/O machines (invite secret, key
  confirmation, verification code) and the agreed terms;
- :mod:`p2p.admission` — which pending handshakes the host keeps, whom the gate of a match
  still lets in, and rate-limited refusals;
- :mod:`p2p.identity`, :mod:`p2p.files` — long-term keys, known peers (look-alike names
  included), atomic writes;
- :mod:`p2p.fairdeal`, :mod:`p2p.match` — commit-reveal deals and the chain of signed links;
- :mod:`p2p.duel`, :mod:`p2p.players` — playing a match over a channel: keep-alives,
  resuming on a fresh connection after a drop, forfeit claims, rematches;
- :mod:`p2p.lockstep`, :mod:`p2p.resume` — sans-I/O machines: what the peer's messages mean
  during a match; the resume exchange (our claim, the peer's judged against our match, the
  links it lacks);
- :mod:`p2p.liveness` — a sans-I/O machine fed clock readings: when keep-alives go out, when
  the peer counts as silent, dead, stalling or away, and what a forfeit claim awards;
- :mod:`p2p.match_end` — a sans-I/O table: how a match that stops ends (the end note, the seat
  awarded the game, what the peer is told), and whether a side back late finds its match over;
- :mod:`p2p.connect`, :mod:`p2p.reception`, :mod:`p2p.invite` — the asyncio driver: hosting
  (a listener that admits only the same joiner again once a match is on, each connection
  served by its reception), joining (every address of the invite, staggered) and
  redialing; invites;
- :mod:`p2p.record` — signed match records, appended link by link, and their verification;
- :mod:`p2p.text` — what people read (errors, status lines) as English
  :class:`~p2p.text.Text` that keeps its template, so that the interface can translate it.

No argparse, printing or input here: the commands are ``cli/commands/host.py`` and
``join.py`` (with ``cli/net/``), the app's folders ``cli/home.py``.

``p2p`` depends on ``engine`` only; the full-screen game plugs in through
:class:`p2p.players.Player` (see ``cli/app/network_opponent.py``).
"""
