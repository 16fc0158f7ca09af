"""OpenTelemetry spans of one answered request, built from its trace when it ends.

Spans go through the OpenTelemetry API: with no tracer provider configured (the default) the
API's tracer records nothing and costs next to nothing, so spans are exported only when the
process configures a provider - ``tablerag serve`` installs the SDK's with the OTLP exporter
when ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set and ``opentelemetry-sdk`` and
``opentelemetry-exporter-otlp`` are installed (:func:`configure_from_env`), and any host
program may install its own.

One span ``tablerag.ask`` per request, with a child per stage from the request's trace: ``route``,
``retrieval``, ``schema``, one ``chat <model>`` per model call with the GenAI semantic
conventions' attributes (``gen_ai.operation.name``, ``gen_ai.request.model``,
``gen_ai.usage.input_tokens``/``output_tokens``), and one ``sql`` per SQL attempt. The
question, prompts, answers and SQL text are never put on a span: only codes, counts, ids and
times.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from opentelemetry import trace

from tablerag.answer import Answer
from tablerag.request import Request

log = logging.getLogger(__name__)
TRACER = "tablerag"


def export_spans(rq: Request, answer: Answer | None, *, status: str) -> None:
    """Record the spans of ``rq`` (a no-op without a configured tracer provider)."""
    tracer = trace.get_tracer(TRACER)
    now_ns = time.time_ns()
    start_ns = now_ns - int(rq.trace.elapsed_ms() * 1e6)

    def at(ms: float) -> int:
        return start_ns + int(ms * 1e6)

    root_attrs: dict[str, Any] = {
        "tablerag.request.id": rq.id,
        "tablerag.origin": rq.origin,
        "tablerag.status": status,
        "gen_ai.usage.input_tokens": rq.usage.prompt_tokens,
        "gen_ai.usage.output_tokens": rq.usage.completion_tokens,
        "tablerag.llm.calls": rq.usage.calls,
    }
    if answer is not None:
        root_attrs["tablerag.path"] = answer.path
        if answer.route is not None:
            root_attrs["tablerag.route.intent"] = answer.route.intent
            root_attrs["tablerag.route.confidence"] = answer.route.confidence
    root = tracer.start_span("tablerag.ask", start_time=start_ns, attributes=root_attrs)
    context = trace.set_span_in_context(root)
    routing_ms = (answer.timings_ms.get("routing", 0.0) if answer is not None else 0.0) or 0.0
    for event in rq.trace.events:
        data = event.data
        if event.kind == "model":
            name, begin = f"chat {data.get('model', '')}", event.at_ms - float(data.get("ms", 0))
            attrs: dict[str, Any] = {
                "gen_ai.operation.name": "chat",
                "gen_ai.request.model": str(data.get("model", "")),
                "gen_ai.usage.input_tokens": int(data.get("prompt_tokens", 0)),
                "gen_ai.usage.output_tokens": int(data.get("completion_tokens", 0)),
                "tablerag.cached": bool(data.get("cached", False)),
            }
        elif event.kind == "route":
            name, begin = "route", event.at_ms - routing_ms
            attrs = {"tablerag.route.intent": str(data.get("intent", ""))}
        elif event.kind == "schema":
            name, begin = "schema", event.at_ms - float(data.get("ms", 0))
            attrs = {"tablerag.source": str(data.get("source", ""))}
        elif event.kind == "retrieval":
            name, begin = "retrieval", event.at_ms
            attrs = {"tablerag.chunks": len(data.get("chunks", ()))}
        elif event.kind == "sql":
            name, begin = "sql", event.at_ms
            attrs = {
                "tablerag.sql.failed": data.get("error") is not None,
                "tablerag.sql.issues": len(data.get("issues", ())),
            }
        elif event.kind in ("queued", "started", "step"):
            name, begin = event.kind, event.at_ms
            attrs = {k: v for k, v in data.items() if isinstance(v, int | float | bool)}
        else:
            continue
        span = tracer.start_span(
            name, context=context, start_time=at(max(0.0, begin)), attributes=attrs
        )
        span.end(end_time=at(event.at_ms))
    root.end(end_time=now_ns)


def configure_from_env() -> bool:
    """Install an SDK tracer provider exporting over OTLP when ``OTEL_EXPORTER_OTLP_ENDPOINT``
    is set and the SDK and exporter are installed; False otherwise (spans stay unrecorded)."""
    if not os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT"):
        return False
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # type: ignore[import-not-found]
            OTLPSpanExporter,
        )
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor
    except ImportError:
        log.warning(
            "OTEL_EXPORTER_OTLP_ENDPOINT is set but opentelemetry-sdk and "
            "opentelemetry-exporter-otlp are not installed; no spans are exported "
            "(pip install opentelemetry-sdk opentelemetry-exporter-otlp)."
        )
        return False
    provider = TracerProvider(resource=Resource.create({"service.name": "tablerag"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return True
