"""Transcription, diarization and timestamp scoring for long podcast and meeting audio."""
