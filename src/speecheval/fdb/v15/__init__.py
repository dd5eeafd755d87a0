"""Full-Duplex-Bench v1.5: overlap scenarios, their dataset and event-anchored timing."""
