"""The HTTP API of ``tablerag serve``: :func:`tablerag.api.app.create_app` over a
:class:`tablerag.runtime.Runtime`; errors in one JSON shape (:mod:`tablerag.api.errors`)."""
