"""Building FDB v1.0 inputs from committed speech: reference trees (``trees``: the bundled
mini tree of ``mini``, the full-size tree of ``scale``) and the input dataset
(``dataset``), each sample declared as a ``spec.SampleSpec`` and rendered from the
espeak-ng clips (``clips``, ``render``)."""
