"""Evaluations on public datasets read in their original formats (see ``tablerag eval``)."""
