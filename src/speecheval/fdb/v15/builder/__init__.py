"""Building a v1.5 dataset from espeak-ng speech (``dataset``, the ``build-dataset``
command's work): the sentences by role (``texts``), one utterance in one voice
(``speech``), the acoustic treatments of the overlap turns (``acoustics``), and
word-timed transcripts spread over synthetic speech (``synthetic_words``)."""
