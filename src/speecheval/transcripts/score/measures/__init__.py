"""The transcripts measures, one module each; :func:`..measure.measures` finds them all."""
