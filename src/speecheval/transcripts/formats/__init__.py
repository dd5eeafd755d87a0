"""Readers and writers for transcript and diarization file formats, one module per format."""
