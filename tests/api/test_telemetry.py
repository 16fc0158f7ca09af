"""Spans per request and stage, with GenAI attributes, exported only when a provider is set;
never the question, prompts, answer or SQL text."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from tablerag import telemetry
from tablerag.runtime import Runtime


@pytest.fixture
def spans(monkeypatch: pytest.MonkeyPatch) -> Iterator[InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(telemetry.trace, "get_tracer", lambda name: provider.get_tracer(name))
    yield exporter


def test_a_request_gives_one_root_and_a_span_per_stage(
    runtime: Runtime, spans: InMemorySpanExporter
) -> None:
    question = "How many refunds are there?"
    rq = runtime.request(question)
    runtime.serve(rq)
    found = spans.get_finished_spans()
    root = next(s for s in found if s.name == "tablerag.ask")
    children = [s for s in found if s is not root]
    assert all(s.parent is not None and s.parent.span_id == root.context.span_id for s in children)
    names = [s.name for s in children]
    assert {"started", "route", "retrieval", "schema", "sql"} <= set(names)
    chat = next(s for s in children if s.name.startswith("chat "))
    assert chat.attributes is not None and root.attributes is not None
    assert chat.attributes["gen_ai.operation.name"] == "chat"
    assert chat.attributes["gen_ai.usage.input_tokens"] > 0
    assert root.attributes["tablerag.status"] == "ok" and root.attributes["tablerag.llm.calls"] == 1
    assert all(root.start_time <= s.start_time <= s.end_time <= root.end_time for s in children)
    for s in found:
        values = [str(v) for v in (s.attributes or {}).values()]
        assert not any("refunds" in v or "SELECT" in v for v in values)


def test_without_a_provider_nothing_is_recorded(runtime: Runtime) -> None:
    assert isinstance(
        trace.get_tracer_provider(), trace.ProxyTracerProvider | trace.NoOpTracerProvider
    )
    answer = runtime.serve(runtime.request("How many refunds are there?"))
    assert answer.status == "ok"


def test_configure_from_env_needs_the_endpoint(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OTEL_EXPORTER_OTLP_ENDPOINT", raising=False)
    assert telemetry.configure_from_env() is False
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318")
    exporter = "opentelemetry.exporter.otlp.proto.http.trace_exporter"
    monkeypatch.setitem(sys.modules, exporter, None)  # as if not installed
    assert telemetry.configure_from_env() is False
    assert isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)
