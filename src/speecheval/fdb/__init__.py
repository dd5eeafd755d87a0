"""Full-Duplex-Bench: v1.0 (``fdb.v10``) and, later, v1.5 (``fdb.v15``)."""
