"""Full-Duplex-Bench: v1.0 (``fdb.v10``), v1.5 (``fdb.v15``) and what both use (``fdb.common``)."""
