"""``speecheval transcripts run``: run transcription systems over long recordings.

The layout of a run directory, the tracks and the lineage are defined in
``docs/transcripts-run.md``; each module here does one step: read the run manifest
(:mod:`.manifest`), decode the input once (:mod:`.input_audio`), cut it for the chunked
track (:mod:`.chunker`), call a system (:mod:`.systems`), write a job's raw answer once
(:mod:`.jobs`), derive transcripts from raw answers (:mod:`.derive`) and drive it all,
resumably (:mod:`.runner`).
"""
