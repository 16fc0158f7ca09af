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

from tablerag.sql.sensitive import SENSITIVE_NAME

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

DENIED_BY_DIALECT: dict[str, re.Pattern[str]] = {
    "mysql": re.compile(
        r"^(load_file|benchmark|sleep|get_lock|release_lock|release_all_locks|is_free_lock"
        r"|is_used_lock|master_pos_wait|master_gtid_wait|source_pos_wait|wait_for_executed_gtid_set"
        r"|wait_until_sql_thread_after_gtids|binlog_gtid_pos|connection_id|last_insert_id"
        r"|found_rows|row_count|user|system_user|session_user|current_user|current_role|database"
        r"|schema|name_const|extractvalue|updatexml|sys_\w+|lastval|nextval|setval|uuid_short"
        r"|sys_guid|procedure_analyse|json_schema_valid|sformat|decode_histogram)$",
        re.IGNORECASE,
    )
}
"""Names denied in one dialect only: MySQL/MariaDB's file reader (``LOAD_FILE``), the ways to
stall the server or hold a lock past the query (``SLEEP``, ``BENCHMARK``, ``GET_LOCK``,
``MASTER_POS_WAIT``...), session and identity leaks (``CONNECTION_ID``, ``LAST_INSERT_ID``,
``USER``, ``DATABASE``), the error-based extraction helpers (``EXTRACTVALUE``, ``UPDATEXML``,
``NAME_CONST``), sequences (MariaDB) and the usual names of command-running UDFs (``sys_exec``,
``sys_eval``). Other names sqlglot does not know are denied by the allowlist anyway."""

QUALIFIED_CALL_DIALECTS: frozenset[str] = frozenset({"mysql"})
"""Dialects where a function called through a schema (``sales.f(x)``, even ``sales.left(x)``)
is refused: it names a stored function, which runs with its definer's rights."""

CATALOG_TYPES: frozenset[str] = frozenset(
    {"oid", "regclass", "regcollation", "regconfig", "regdictionary", "regnamespace", "regoper",
     "regoperator", "regproc", "regprocedure", "regrole", "regtype"}
)  # fmt: skip
"""PostgreSQL's object-identifier types: a cast to one looks a name or number up in the system
catalog (``CAST(CAST(x AS oid) AS regclass)`` over ``generate_series`` lists every relation,
role, schema or function, granted or not). DuckDB 2.0 has none of the ``reg*`` types (``oid`` is
an integer alias there), but its error names catalog types, so they are refused there too; SQLite
has no such type (any type name is only an affinity)."""

CATALOG_TYPE_DIALECTS: frozenset[str] = frozenset({"postgres", "duckdb"})
"""Dialects where a cast to a :data:`CATALOG_TYPES` type is refused."""

CATALOG_FUNCTION = re.compile(
    r"^(to_reg|(?:" + "|".join(sorted(CATALOG_TYPES)) + r")$|.*_oid$|oid_"
    r"|(?:sh)?obj_description$|col_description$|format_type$|row_security_active$)",
    re.IGNORECASE,
)
"""Functions that look names or OIDs up in the catalog: ``to_regclass``/``to_regrole``/...,
the function-call spelling of a cast (``regclass('x')``, ``oid(1)``), ``*_oid`` helpers,
``obj_description``, ``format_type``."""

CATALOG_MESSAGE = (
    "Casts to regclass/oid types read the database catalog; they are not allowed: cast to "
    "INTEGER, NUMERIC, TEXT or DATE instead"
)
"""Why a catalog cast or lookup is refused, and what to write instead (no final full stop)."""


def catalog_type(node: exp.DataType) -> str | None:
    """The object-identifier type ``node`` names (``'regclass'``), or None for any other type.

    Example:
        >>> import sqlglot
        >>> cast = sqlglot.parse_one("SELECT x::pg_catalog.regclass", read="postgres").selects[0]
        >>> catalog_type(cast.to)
        'regclass'
        >>> catalog_type(sqlglot.parse_one("SELECT x::date", read="postgres").selects[0].to)
    """
    this = node.this
    if isinstance(this, exp.DType):
        if this != exp.DType.USERDEFINED:
            return None
        this = node.args.get("kind")
    if isinstance(this, exp.Dot):  # pg_catalog.regclass
        this = this.expression
    if isinstance(this, exp.Expr):
        this = this.name
    if not isinstance(this, str):
        return None
    name = this.split(".")[-1].strip().strip('"`[]').lower()
    return name if name in CATALOG_TYPES else None


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

ALLOWED_ANONYMOUS["mysql"] = _COMMON - {"to_char", "to_date", "to_number", "age", "initcap"} | {
    # dates and times (the clock: ``now`` as in DuckDB/PostgreSQL)
    "now", "curdate", "curtime", "sysdate", "utc_date", "utc_time", "utc_timestamp", "adddate",
    "subdate", "addtime", "subtime", "weekday", "yearweek", "weekofyear", "microsecond",
    "unix_timestamp", "from_unixtime", "makedate", "maketime", "period_add", "period_diff",
    "sec_to_time", "time_to_sec", "from_days", "to_days", "to_seconds", "time_format",
    "dayname", "monthname", "dayofweek", "dayofmonth", "dayofyear", "quarter", "hour", "minute",
    "second", "last_day", "convert_tz", "get_format",
    # strings and numbers
    "field", "find_in_set", "elt", "mid", "oct", "ord", "strcmp", "crc32", "conv", "lcase",
    "ucase", "char_length", "character_length", "locate", "substring_index", "space", "bin",
    "hex", "unhex", "soundex", "insert", "truncate", "ceiling", "pow", "power", "rand", "sha1",
    "sha2", "bit_count", "format", "regexp_instr", "regexp_substr", "regexp_like",
    "substr", "abs", "round", "mod", "std", "stddev_pop", "stddev_samp", "var_pop", "var_samp",
    "bit_and", "bit_or", "bit_xor", "any_value",
    # JSON values
    "json_unquote", "json_length", "json_contains", "json_array", "json_object", "json_keys",
    "json_value", "json_extract", "json_type", "json_valid", "json_depth",
}  # fmt: skip
"""MySQL/MariaDB: the common names PostgreSQL spells (``to_char``, ``age``...) are not functions
there; the rest are built-ins sqlglot leaves unmodelled."""

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
    parent = node.parent
    if (
        dialect in QUALIFIED_CALL_DIALECTS
        and isinstance(parent, exp.Dot)
        and parent.expression is node
    ):
        return (
            f"function {parent.sql(dialect=dialect)!r} is called through a schema, which names a "
            "stored (user-defined) function; call built-in functions without a schema"
        )
    denied = DENIED_BY_DIALECT.get(dialect)
    if denied is not None and denied.match(name):
        return f"function {name!r} is a system, lock or file function of {dialect}"
    if CATALOG_FUNCTION.match(name):
        return f"function {name!r} looks names up in the database catalog, which is not allowed"
    if type(node).__name__ in DENIED_CLASSES or DENIED_NAME.match(name):
        return f"function {name!r} is a system or file function"
    if isinstance(node, exp.Anonymous) and name not in ALLOWED_ANONYMOUS.get(dialect, _COMMON):
        return f"function {name!r} is not on the allowlist of {dialect}"
    return None


# --- nested keys ---------------------------------------------------------------------------------

_ACCESS_CLASSES: tuple[type[exp.Expr], ...] = tuple(
    c
    for c in (
        getattr(exp, n, None)
        for n in (
            "JSONExtract", "JSONExtractScalar", "JSONBExtract", "JSONBExtractScalar",
            "JSONExtractArray", "JSONValue", "JSONExists", "JSONBContains", "JSONBExists",
            "JSONExtractQuote", "StructExtract", "Bracket", "GetPath", "JSONKeys",
        )
    )
    if isinstance(c, type)
)  # fmt: skip
"""sqlglot nodes that read one key (or index) of a JSON, struct, map or array value."""

_CONTAINS_CLASSES: tuple[type[exp.Expr], ...] = tuple(
    c
    for c in (
        getattr(exp, n, None)
        for n in (
            "ArrayContainsAll", "ArrayContainedBy", "ArrayOverlaps", "JSONBContainsTopKey",
            "JSONBContainsAnyTopKeys", "JSONBContainsAllTopKeys",
        )
    )
    if isinstance(c, type)
)  # fmt: skip
"""Containment tests (PostgreSQL ``@>``, ``<@``, ``?``, ``?|``, ``?&``): ``prefs @>
'{"password": "x"}'`` tests a nested value against a guess, whichever side the literal is on."""

ACCESS_NAME = re.compile(
    r"^(jsonb?_(extract\w*|value|query|unquote|exists|contains\w*|search|get\w*|path\w*)"
    r"|\w*extract_path\w*|struct_extract|map_extract|element_at|get_path|array_extract"
    r"|list_extract|list_element)$",
    re.IGNORECASE,
)
"""Names of functions (parsed as ``Anonymous``) that read a key of a nested value."""


def _key_texts(node: exp.Expr) -> list[str] | None:
    """The key names a nested-value access reads, or None when one is computed (not a literal
    key, or a wildcard that reads every key)."""
    if isinstance(node, exp.Anonymous):
        args = list(node.expressions[1:])
    else:
        args = [v for k, v in node.args.items() if k != "this" and isinstance(v, exp.Expr)]
        args += [e for k, v in node.args.items() if isinstance(v, list) for e in v]
    texts: list[str] = []
    for arg in args:
        if isinstance(arg, exp.Literal):
            if arg.is_string:
                texts.append(arg.name)
            continue
        if isinstance(arg, exp.JSONPath):
            for part in arg.expressions:
                if isinstance(part, exp.JSONPathKey):
                    if not isinstance(part.this, str):
                        return None
                    texts.append(part.this)
                elif type(part).__name__ in {"JSONPathWildcard", "JSONPathRecursive"}:
                    return None
            continue
        if isinstance(arg, exp.Identifier | exp.Boolean | exp.DataType):
            continue
        if isinstance(arg, exp.Neg) and isinstance(arg.this, exp.Literal):
            continue  # a negative index
        return None
    return texts


def nested_key_denial(node: exp.Expr) -> str | None:
    """Why reading a key of a nested value with ``node`` is refused, or None.

    A key named like a hidden column (``password``, ``phone``, ``身份证``: the name test of
    :data:`~tablerag.sql.sensitive.SENSITIVE_NAME`) is refused, and so is a key the gate
    cannot read (computed, or a wildcard that reads every key).

    Example:
        >>> import sqlglot
        >>> q = sqlglot.parse_one("SELECT p->>'password', p->>'theme' FROM t", read="postgres")
        >>> [nested_key_denial(s) for s in q.selects]
        ["key 'password' of a nested value is named like personal or secret data", None]
        >>> nested_key_denial(sqlglot.parse_one("SELECT struct_extract(s, k) FROM t").selects[0])
        'a computed key of a nested value cannot be checked'
    """
    if isinstance(node, _CONTAINS_CLASSES):
        for literal in node.find_all(exp.Literal):
            denial = _sensitive_key(literal.name) if literal.is_string else None
            if denial:
                return denial
        return None
    accessing = isinstance(node, _ACCESS_CLASSES) or (
        isinstance(node, exp.Anonymous) and ACCESS_NAME.match(str(node.name))
    )
    if isinstance(node, exp.Dot) and isinstance(node.expression, exp.Identifier):
        key = node.expression.name
        return _sensitive_key(key)
    if not accessing:
        return None
    keys = _key_texts(node)
    if keys is None:
        return "a computed key of a nested value cannot be checked"
    for key in keys:
        denial = _sensitive_key(key)
        if denial:
            return denial
    return None


def _sensitive_key(path: str) -> str | None:
    if "\\" in path:
        # ``$."p\u0061ssword"``: the engine decodes the escape, the name test would not
        return f"key {path!r} of a nested value is written with an escape, which cannot be checked"
    for part in re.split(r"[^\w\u4e00-\u9fff]+", path):
        if part and SENSITIVE_NAME.search(part):
            return f"key {part!r} of a nested value is named like personal or secret data"
    return None


# --- masked columns ------------------------------------------------------------------------------

MASK_SAFE_PARENTS: tuple[type[exp.Expr], ...] = (exp.Count, exp.Is, exp.Group, exp.Distinct)
"""Where a masked column may stand (its direct parent), besides being a select item as it is
(``SELECT notes`` or ``notes AS n``): counted (``count(notes)``, ``count(DISTINCT notes)``),
tested for NULL (``notes IS NULL``), grouped by (``GROUP BY notes``: one row per value, each
shown masked). Anything else could undo the mask or test the value the mask hides:

- functions that rewrite the text (``reverse``, ``replace``, ``translate``, ``substr`` pieces
  concatenated, ``regexp_replace``, ``lpad``/``rpad``, ``hex``/``encode``, splitting into
  characters, casts to other types, ``||``): the result no longer looks like a phone number
  or an e-mail address, so the mask does not find it;
- comparisons (``=``, ``<``, ``LIKE``, ``IN``, ``BETWEEN``), ``CASE`` over it, ``ORDER BY``,
  ``min``/``max``, window functions: each answers a question about the hidden value (``WHERE
  notes LIKE '%1381234%'`` reads a phone number one digit at a time), a side channel.

An allowlist, not a blocklist: a function sqlglot adds tomorrow is refused until it is
listed here (and in :data:`MASK_SAFE_FUNCTIONS`)."""

MASK_SAFE_FUNCTIONS: frozenset[str] = frozenset(
    {"length", "char_length", "character_length", "octet_length", "bit_length", "strlen", "len"}
)
"""Functions a masked column may be an argument of: the length of a value says how long it
is, not what it says (a masked phone number keeps its length; an e-mail's local part length is
what is left to infer). Counting characters is a common analytic question about free text."""


def mask_context_denial(column: exp.Expr) -> str | None:
    """Why ``column`` (a reference to a masked column) stands where the mask cannot hold, or
    None when it stands in a safe place (see :data:`MASK_SAFE_PARENTS`).

    Example:
        >>> import sqlglot
        >>> q = sqlglot.parse_one("SELECT notes, count(DISTINCT notes), reverse(notes), "
        ...     "length(notes) FROM t")
        >>> [mask_context_denial(c) for c in q.find_all(exp.Column, bfs=False)]
        [None, None, 'reverse(...) could undo the mask', None]
        >>> w = sqlglot.parse_one("SELECT id FROM t WHERE notes LIKE '%1381%'")
        >>> mask_context_denial(w.find(exp.Like).this)
        'a comparison (LIKE) tests the hidden value'
    """
    parent = column.parent
    if isinstance(parent, exp.Alias):
        column, parent = parent, parent.parent
    if isinstance(parent, exp.Select) and column.arg_key == "expressions":
        return None
    if isinstance(parent, exp.Distinct) and isinstance(parent.parent, exp.Count):
        return None
    if isinstance(parent, MASK_SAFE_PARENTS) and not isinstance(parent, exp.Distinct):
        if isinstance(parent, exp.Is) and not isinstance(parent.expression, exp.Null):
            return "IS DISTINCT FROM compares the hidden value"
        return None
    if isinstance(parent, exp.Predicate | exp.Binary) and not isinstance(
        parent, exp.DPipe | exp.Dot | exp.Connector
    ):
        return f"a comparison ({parent.key.upper()}) tests the hidden value"
    if isinstance(parent, exp.Ordered | exp.Order):
        return "ordering by it reveals the order of the hidden values"
    if isinstance(parent, exp.Func):
        name = function_name(parent)
        args = parent.expressions if isinstance(parent, exp.Anonymous) else [parent.this]
        if name in MASK_SAFE_FUNCTIONS and args[:1] == [column] and args[0] is column:
            return None
        return f"{name}(...) could undo the mask"
    shown = parent.key.upper() if parent is not None else "this expression"
    return f"{shown} could undo the mask"
