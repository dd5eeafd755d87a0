"""Full-Duplex-Bench v1.0: the reference tree and the unified turn-taking metrics.

``builder`` makes inputs, ``scoring`` scores a tree, ``reference`` runs the official
evaluator beside it, ``report`` writes what was scored and ``cli`` holds the commands;
what v1.5 uses too is ``fdb.common``."""
