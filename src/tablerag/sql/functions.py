"""Which SQL functions generated SQL may call, per dialect.

Functions sqlglot knows (typed nodes such as ``Sum``, ``Substring``, ``DateTrunc``) are allowed
unless they read files or URLs, touch sequences, call remote models, or reveal the server's
identity. Functions sqlglot does not know (``Anonymous`` nodes) are denied unless they are on the
dialect's allowlist: an unknown name is the usual shape of ``pg_read_file``, ``dblink``,
``lo_import``, ``query()`` or ``load_extension``, so the gate fails closed.
"""

from __future__ import annotations

import re

from sqlglot import exp

DENIED_CLASSES: frozenset[str] = frozenset(
    {
        # file, URL and remote-model readers
        "ReadCSV", "ReadParquet", "Columns", "ToFile", "ParseUrl", "Host", "RegDomain",
        "AIAgg", "AIClassify", "AIEmbed", "AIForecast", "AIGenerate", "AISimilarity",
        "AISummarizeAgg", "MLForecast", "MLTranslate", "Predict", "GenerateEmbedding",
        # sequences write state
        "NextValueFor", "Seq1", "Seq2", "Seq4", "Seq8",
        # who and where the server is
        "CurrentUser", "CurrentUserId", "SessionUser", "CurrentRole", "CurrentRoleType",
        "CurrentAvailableRoles", "CurrentSecondaryRoles", "CurrentAccount", "CurrentAccountName",
        "CurrentOrganizationName", "CurrentOrganizationUser", "CurrentClient", "CurrentIpAddress",
        "CurrentRegion", "CurrentWarehouse", "CurrentVersion", "CurrentDatabase", "CurrentCatalog",
        "CurrentSchema", "CurrentSchemas", "CurrentSession", "CurrentStatement",
        "CurrentTransaction",
    }
)  # fmt: skip
"""sqlglot function classes that are never allowed."""

DENIED_NAME = re.compile(
    r"^(pg_|duckdb_|sqlite_|lo_|dblink|read_|glob$|getenv$|sleep|current_setting$|set_config$"
    r"|load_extension$|query$|query_table$|sniff_csv$|parquet_|http|iceberg_|delta_|txid_"
    r"|nextval$|setval$|currval$|lastval$|version$|inet_|has_.*_privilege$|system$|shell"
    r"|copy|export|import|attach|install|load$|columns$|getvariable$)",
    re.IGNORECASE,
)
"""Names denied whatever node sqlglot parsed them into (belt and braces for future versions)."""

_COMMON = frozenset(
    {"printf", "format", "concat_ws", "nullif", "coalesce", "ifnull", "greatest", "least",
     "sign", "trunc", "ln", "log10", "log2", "degrees", "radians", "pi", "cot", "atan2",
     "left", "right", "lpad", "rpad", "repeat", "reverse", "replace", "translate", "ascii",
     "chr", "initcap", "strpos", "instr", "position", "split_part", "regexp_replace",
     "regexp_matches", "md5", "to_char", "to_date", "to_number", "date_part", "age", "extract",
     "mode", "median", "stddev", "variance", "corr", "row_number", "rank", "dense_rank",
     "ntile", "lag", "lead", "first_value", "last_value", "nth_value", "percent_rank",
     "cume_dist", "string_agg", "array_agg", "bool_and", "bool_or", "every", "isfinite"}
)  # fmt: skip

ALLOWED_ANONYMOUS: dict[str, frozenset[str]] = {
    "duckdb": _COMMON
    | frozenset(
        {
            "list_value",
            "list_aggregate",
            "list_sum",
            "list_sort",
            "len",
            "strlen",
            "starts_with",
            "ends_with",
            "contains",
            "prefix",
            "suffix",
            "epoch",
            "epoch_ms",
            "dayname",
            "monthname",
            "yearweek",
            "isodow",
            "dayofweek",
            "dayofyear",
            "last_day",
            "make_date",
            "strftime",
            "strptime",
            "arg_max",
            "arg_min",
            "fsum",
            "histogram",
            "bit_length",
            "list_distinct",
            "list_contains",
            "regexp_full_match",
            "jaro_winkler_similarity",
            "levenshtein",
            "damerau_levenshtein",
            "hamming",
            "string_split",
            "array_to_string",
            "typeof",
            # formats values as JSON text (results are masked inside JSON text too)
            "to_json",
            # the clock: the pinned ``today`` when set (``nl2sql.autofix.pin_today``)
            "now",
            "get_current_timestamp",
            "transaction_timestamp",
        }
    ),
    "sqlite": _COMMON
    | frozenset(
        {
            "julianday",
            "strftime",
            "date",
            "time",
            "datetime",
            "unixepoch",
            "total",
            "char",
            "unicode",
            "likely",
            "unlikely",
            "likelihood",
            "iif",
            "hex",
            "quote",
            "zeroblob",
            "typeof",
            "soundex",
            "group_concat",
            "ltrim",
            "rtrim",
            "substr",
            "abs",
            "round",
        }
    ),
    "postgres": _COMMON
    | frozenset(
        {
            "date_trunc",
            "justify_days",
            "justify_hours",
            "make_date",
            "make_interval",
            "to_timestamp",
            "width_bucket",
            "percentile_cont",
            "percentile_disc",
            "btrim",
            "regexp_split_to_array",
            "array_length",
            "cardinality",
            "jsonb_array_length",
            "json_build_object",
            "jsonb_build_object",
            "jsonb_extract_path_text",
            "num_nulls",
            "num_nonnulls",
            "scale",
            "div",
            "mod",
            "gcd",
            "lcm",
            "factorial",
            "octet_length",
            "bit_length",
            "quote_ident",
            "quote_literal",
        }
    ),
}
"""Functions sqlglot does not model that a dialect may call; other unknown names are denied."""

ALLOWED_TABLE_FUNCTIONS: frozenset[str] = frozenset(
    {"unnest", "explode", "generate_series", "exploding_generate_series", "range"}
)
"""Table-valued functions allowed in FROM: they produce values, they read nothing."""


def function_name(node: exp.Func) -> str:
    """The name a function node is called by in SQL, lower-cased.

    Example:
        >>> import sqlglot
        >>> function_name(sqlglot.parse_one("pg_sleep(1)", read="postgres"))
        'pg_sleep'
        >>> function_name(sqlglot.parse_one("SUM(x)"))
        'sum'
    """
    if isinstance(node, exp.Anonymous):
        return str(node.name).lower()
    return node.sql_name().lower()


def function_denial(node: exp.Func, dialect: str) -> str | None:
    """Why calling ``node`` is not allowed in ``dialect``, or None when it is allowed.

    Example:
        >>> import sqlglot
        >>> function_denial(sqlglot.parse_one("SELECT pg_read_file('x')").selects[0], "postgres")
        "function 'pg_read_file' is a system or file function"
        >>> function_denial(sqlglot.parse_one("SELECT upper(x)").selects[0], "duckdb") is None
        True
    """
    name = function_name(node)
    if type(node).__name__ in DENIED_CLASSES or DENIED_NAME.match(name):
        return f"function {name!r} is a system or file function"
    if isinstance(node, exp.Anonymous) and name not in ALLOWED_ANONYMOUS.get(dialect, _COMMON):
        return f"function {name!r} is not on the allowlist of {dialect}"
    return None
