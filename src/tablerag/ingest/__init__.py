"""Reading sources (files and databases) into a workspace."""
