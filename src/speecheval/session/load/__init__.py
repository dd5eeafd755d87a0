"""``session load``: a scenario at rising concurrency over real sockets, and its reports."""
