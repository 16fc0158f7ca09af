"""The Spider semantic set (``--set spider``): two Spider dev databases queried in place, a
semantic model written for them and twenty questions that need it (issue 30)."""
