"""Full-Duplex-Bench, what v1.0 and v1.5 share: dataset hashing and revisions, record ->
capture -> playout -> export -> eligibility, the reference tree and its files, words and
annotations, the aggregate statistics, reference ASR, the official-evaluator pins and the
CLI option helpers. Imports neither ``fdb.v10`` nor ``fdb.v15``."""
