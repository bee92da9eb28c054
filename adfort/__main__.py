"""``python -m adfort`` runs the command-line interface."""

from adfort.cli import run

run()
