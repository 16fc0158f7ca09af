"""``python -m tablerag`` runs the command line."""

from tablerag.cli import main

main()
