"""speecheval: measure spoken-dialogue systems from their audio.

The public Python API is one module per family, each listing its stable names in
``__all__`` (everything else is private and may change):

- :mod:`speecheval.transcripts`: ``wer``, ``cp``, ``orc``, ``tcp``, ``der``,
  ``der_by_file`` and ``load``;
- :mod:`speecheval.vad`: ``segments``;
- :mod:`speecheval.fdb10`: ``score_tree`` and ``load_tree`` (Full-Duplex-Bench v1.0);
- :mod:`speecheval.fdb15`: ``score_tree`` (Full-Duplex-Bench v1.5 timing);
- :mod:`speecheval.session`: ``run_scenario`` (live voice-agent sessions).

Importing ``speecheval`` or a family module is cheap: the scorers and models are imported
when a function is called.

>>> import speecheval
>>> speecheval.__version__
'0.2.0'
"""

__version__ = "0.2.0"

__all__ = ["__version__"]
