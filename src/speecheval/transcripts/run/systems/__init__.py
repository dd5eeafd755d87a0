"""The systems ``transcripts run`` calls: one module per adapter, behind
:class:`.base.System`."""
