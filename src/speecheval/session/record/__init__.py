"""What a session recorded, whichever clock or transport recorded it: both tracks and the
typed event log, the one input of the metrics and the reports."""
