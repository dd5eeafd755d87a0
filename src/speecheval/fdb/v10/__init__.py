"""Full-Duplex-Bench v1.0: the reference tree and the unified turn-taking metrics."""
