"""The network duel: two players, one TCP connection, no server, no way to cheat.

Layers, bottom up (docs/protocol.md has the whole contract):

- :mod:`p2p.wire` — length-prefixed, strictly decoded msgpack frames;
- :mod:`p2p.messages` — every message type and its schema check;
- :mod:`p2p.channel` — a connection, sealed with ChaCha20-Poly1305 after the handshake;
- :mod:`p2p.handshake` — the authenticated key exchange and the agreed terms;
- :mod:`p2p.identity`, :mod:`p2p.home` — long-term keys, known peers, directories;
- :mod:`p2p.fairdeal`, :mod:`p2p.match` — commit-reveal deals and the chain of signed links;
- :mod:`p2p.duel`, :mod:`p2p.players` — playing a match over a channel: keep-alives,
  resuming on a fresh connection after a drop, forfeit claims;
- :mod:`p2p.connect`, :mod:`p2p.invite` — hosting (a listener that admits only the same
  joiner again once a match is on), joining and redialing, invites;
- :mod:`p2p.record` — signed match records, appended link by link, and their verification;
- :mod:`p2p.commands` — ``trumps host`` / ``trumps join`` (stdlib imports only at module level);
- :mod:`p2p.text` — what people read (errors, status lines, command output) as English
  :class:`~p2p.text.Text` that keeps its template, so that the interface can translate it.

``p2p`` depends on ``engine`` only; the full-screen game plugs in through
:class:`p2p.players.Player` (see ``cli/app/network_opponent.py``).
"""
