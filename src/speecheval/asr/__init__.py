"""Speech recognisers behind one protocol: audio in, timed words out.

Sits beside ``vad/`` and ``agents/``: it imports only ``core/``, and families (``fdb/v10``
``reference-asr``) ask it for words, so a test can put a local recogniser in its place.
"""
