"""Access: tokens stored hashed, required off loopback, revocable, rate-limited per token; the
``tablerag token`` and ``tablerag serve`` commands."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from typer.testing import CliRunner

from tablerag.api.access import is_loopback
from tablerag.cli import app
from tablerag.runtime import Runtime
from tablerag.store import tokens
from tablerag.store.querylog import service_db
from tests.api.conftest import client_for
from tests.api.test_errors import shape

runner = CliRunner()
ASK = {"question": "How many refunds are there?"}


def test_a_token_is_stored_hashed_and_verified(ws: Path) -> None:
    token, text = tokens.create(ws, "reporting")
    assert text.startswith(f"trg_{token.token_id}_") and len(text) > 40
    stored = service_db(ws).read_bytes()
    assert text.encode() not in stored and text.split("_", 2)[2].encode() not in stored
    assert tokens.verify(ws, text) == token
    assert tokens.verify(ws, text + "x") is None and tokens.verify(ws, "trg_zz_zz") is None
    assert tokens.revoke(ws, token.token_id) and tokens.verify(ws, text) is None
    assert not tokens.revoke(ws, token.token_id)


def test_off_loopback_every_v1_request_needs_a_valid_token(runtime: Runtime) -> None:
    token, text = tokens.create(runtime.path, "app")
    with client_for(runtime, require_token=True) as client:
        assert client.get("/healthz").status_code == 200  # health needs no token
        r = client.post("/v1/ask", json=ASK)
        shape(r, 401, "unauthorized")
        assert r.headers["www-authenticate"] == "Bearer"
        shape(
            client.get("/v1/tables", headers={"Authorization": "Bearer nope"}), 401, "unauthorized"
        )
        shape(client.get("/v1/tables", headers={"Authorization": text}), 401, "unauthorized")
        good = {"Authorization": f"Bearer {text}"}
        r = client.post("/v1/ask", json=ASK, headers=good)
        assert r.status_code == 200
        history = client.get("/v1/history", headers=good).json()
        assert [h["id"] for h in history] == [r.json()["id"]]
        tokens.revoke(runtime.path, token.token_id)
        shape(client.get("/v1/tables", headers=good), 401, "unauthorized")


def test_a_token_sees_only_its_own_history(runtime: Runtime) -> None:
    _, mine = tokens.create(runtime.path, "mine")
    _, theirs = tokens.create(runtime.path, "theirs")
    with client_for(runtime, require_token=True) as client:
        client.post("/v1/ask", json=ASK, headers={"Authorization": f"Bearer {theirs}"})
        assert client.get("/v1/history", headers={"Authorization": f"Bearer {mine}"}).json() == []


def test_a_token_over_its_rate_gets_429_with_retry_after(runtime: Runtime) -> None:
    _, text = tokens.create(runtime.path, "busy", rate_per_minute=2)
    _, other = tokens.create(runtime.path, "calm")
    with client_for(runtime, require_token=True, rate=100) as client:
        auth = {"Authorization": f"Bearer {text}"}
        assert [client.get("/v1/tables", headers=auth).status_code for _ in range(2)] == [200, 200]
        r = client.get("/v1/tables", headers=auth)
        error = shape(r, 429, "rate_limited")
        assert 1 <= int(r.headers["retry-after"]) <= 60 and error["detail"]["retry_after_s"] > 0
        assert (
            client.get("/v1/tables", headers={"Authorization": f"Bearer {other}"}).status_code
            == 200
        )


def test_cors_is_off_unless_configured(runtime: Runtime) -> None:
    with client_for(runtime) as client:
        r = client.options(
            "/v1/tables",
            headers={"Origin": "https://evil.example", "Access-Control-Request-Method": "GET"},
        )
        assert "access-control-allow-origin" not in r.headers


def test_loopback_addresses() -> None:
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("192.168.1.5")


def test_token_commands(ws: Path) -> None:
    made = runner.invoke(app, ["token", "create", "--name", "bi tool", "-w", str(ws), "--json"])
    assert made.exit_code == 0, made.output
    created = json.loads(made.stdout)
    assert tokens.verify(ws, created["token"]) is not None
    listed = runner.invoke(app, ["token", "list", "-w", str(ws), "--json"])
    rows = json.loads(listed.stdout)
    assert [(r["token_id"], r["name"]) for r in rows] == [(created["token_id"], "bi tool")]
    assert created["token"] not in listed.stdout
    gone = runner.invoke(app, ["token", "revoke", created["token_id"], "-w", str(ws)])
    assert gone.exit_code == 0 and tokens.verify(ws, created["token"]) is None
    again = runner.invoke(app, ["token", "revoke", created["token_id"], "-w", str(ws)])
    assert again.exit_code == 1 and "no active token" in again.output


def test_serve_refuses_a_public_address_without_tokens(ws: Path) -> None:
    r = runner.invoke(app, ["serve", "-w", str(ws), "--host", "0.0.0.0", "--port", "1"])
    assert r.exit_code == 2
    assert "token create" in r.output and "Traceback" not in r.output


def test_the_secret_never_lands_in_the_file_in_clear(ws: Path) -> None:
    _, text = tokens.create(ws, "x")
    with sqlite3.connect(service_db(ws)) as con:
        values = [str(v) for row in con.execute("SELECT * FROM tokens") for v in row]
    assert all(text not in v for v in values)
