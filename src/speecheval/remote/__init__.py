"""Remote models and the HTTP they are spoken to with.

Every part of a run that asks a service over HTTP goes through this package, so timeouts,
retries, the key, scrubbing and bounded parsing are written once:

- :mod:`.client`: one HTTP request and its outcomes (a reply, an error status, no answer);
  the ``/v1/models`` probe of ``record`` and WebRTC signalling use it directly;
- :mod:`.retry`: which failures are asked again, how often and how long to wait;
- :mod:`.keys`: the key variable and the base URL, checked before a run starts;
- :mod:`.endpoint`: an OpenAI-compatible endpoint (the key header, whose fault a failure
  is, every text it sends back scrubbed);
- :mod:`.answers`: answers parsed within bounds;
- :mod:`.chat`: a chat model (the arbitration judges, the session task judge);
- :mod:`.ledger`: every request and reply of a judge, in order.

The transcription recogniser (:mod:`speecheval.asr.openai_compatible`) and the FDB v1.5
behaviour judge (:mod:`speecheval.fdb.v15.judge.openai`) are built on the endpoint.
This package imports ``core`` only (its scrubber, :mod:`speecheval.core.redact`, included).
"""
