"""``python -m speecheval`` runs the CLI."""

from .cli import run

run()
