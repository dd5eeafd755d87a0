"""How often a test's HTTP server looks for ``shutdown()``.

``serve_forever`` checks its shutdown flag once per ``poll_interval`` (0.5 s by default),
so ``shutdown()`` at the end of every test waited up to half a second for nothing; the
servers here pass this instead. A poll costs a ``select`` call, nothing a test measures.
"""

POLL_S = 0.02
