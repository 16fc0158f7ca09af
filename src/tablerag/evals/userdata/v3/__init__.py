"""The third user-data set (``--set v3``): a vocational training school.

Written for issue 29 as data nobody tuned on: its own seed, files of other shapes and another
domain than the first two sets and the shop, questions written as templates before any answer
was computed, and answers that :mod:`.truth` computes in plain Python from the generator's
records (:mod:`.data`), never through tablerag's SQL. Each document question names the passage
that answers it (:attr:`~tablerag.evals.userdata.questions.Question.passage`), so a run can tell
a retrieval miss from an answer that ignored the right passage.
"""
