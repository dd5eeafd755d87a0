"""Live voice-agent sessions: scripted user track in, both tracks recorded, metrics out."""
