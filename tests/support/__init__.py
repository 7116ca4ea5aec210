"""What the tests share: peers and their homes (:mod:`tests.support.peers`), handshakes without
I/O (:mod:`tests.support.handshakes`), lines in memory or meddled with
(:mod:`tests.support.lines`), the program run as a process (:mod:`tests.support.programs`) and a
virtual clock for the asyncio drivers (:mod:`tests.support.clock`)."""
