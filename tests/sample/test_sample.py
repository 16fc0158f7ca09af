"""The sample corpus: deterministic, consistent, and full of the traps it promises."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import docx
import duckdb
import pdfplumber
import pytest
import typer
from typer.testing import CliRunner

from tablerag.errors import ConfigError
from tablerag.sample import DESCRIPTIONS_NAME, MODEL_NAME, documents, mart, write_sample

TABLES = (
    "dim_category",
    "dim_channel",
    "dim_date",
    "dim_employee",
    "dim_product",
    "dim_refund_reason",
    "dim_region",
    "fact_refund",
    "fact_sales",
)
DOCUMENTS = (
    "退货政策.md",
    "refund_policy.md",
    "指标口径.md",
    "sales_handbook.pdf",
    "区域销售制度.docx",
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("corpus")
    write_sample(folder)
    return folder


@pytest.fixture(scope="module")
def con(corpus: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = duckdb.connect()
    for name in TABLES:
        path = str(corpus / f"{name}.csv").replace("'", "''")
        connection.execute(f"CREATE TABLE {name} AS FROM read_csv('{path}', header=true)")
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def descriptions(corpus: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((corpus / DESCRIPTIONS_NAME).read_text("utf-8"))
    return data


def one(con: duckdb.DuckDBPyConnection, sql: str) -> Any:
    row = con.execute(sql).fetchone()
    assert row is not None
    return row[0]


def pdf_text(path: Path) -> str:
    with pdfplumber.open(path) as pdf:
        return "\n".join(page.extract_text() or "" for page in pdf.pages)


def docx_text(path: Path) -> str:
    document = docx.Document(str(path))
    cells = [cell.text for table in document.tables for row in table.rows for cell in row.cells]
    return "\n".join([p.text for p in document.paragraphs] + cells)


# --- files and determinism ---------------------------------------------------------------


def test_writes_tables_documents_descriptions_and_readme(tmp_path: Path) -> None:
    paths = write_sample(tmp_path / "new" / "corpus")
    names = [p.name for p in paths]
    assert names == [
        *(f"{t}.csv" for t in mart_order()),
        DESCRIPTIONS_NAME,
        MODEL_NAME,
        *DOCUMENTS,
        "README.md",
    ]
    assert sorted(p.name for p in (tmp_path / "new" / "corpus").iterdir()) == sorted(names)
    assert sum(p.stat().st_size for p in paths) < 2_000_000


def mart_order() -> list[str]:
    return [table.name for table in mart.build_mart(7).tables]


def test_same_seed_writes_same_bytes_and_same_extracted_text(tmp_path: Path) -> None:
    first, second = write_sample(tmp_path / "a"), write_sample(tmp_path / "b")
    for a, b in zip(first, second, strict=True):
        assert a.read_bytes() == b.read_bytes(), a.name
    assert pdf_text(tmp_path / "a" / "sales_handbook.pdf") == pdf_text(
        tmp_path / "b" / "sales_handbook.pdf"
    )
    assert docx_text(tmp_path / "a" / "区域销售制度.docx") == docx_text(
        tmp_path / "b" / "区域销售制度.docx"
    )


def test_other_seed_changes_the_data_but_keeps_the_traps(tmp_path: Path) -> None:
    write_sample(tmp_path / "a", seed=7)
    write_sample(tmp_path / "b", seed=8)
    assert (tmp_path / "a" / "fact_sales.csv").read_bytes() != (
        tmp_path / "b" / "fact_sales.csv"
    ).read_bytes()
    connection = duckdb.connect()
    path = tmp_path / "b" / "fact_sales.csv"
    high = connection.execute(REFUND_RATE_SQL.format(sales=f"read_csv('{path}')")).fetchall()
    assert sum(1 for _code, rate in high if rate > 0.10) >= 2


def test_refuses_a_file_as_target(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("x")
    with pytest.raises(ConfigError, match="is a file"):
        write_sample(target)


def test_keeps_unrelated_files_in_the_folder(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    write_sample(tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "mine"


# --- schema shape and descriptions -----------------------------------------------------------


def test_nine_tables_57_columns_24_in_the_hub(con: duckdb.DuckDBPyConnection) -> None:
    widths = {t: len(con.execute(f"DESCRIBE {t}").fetchall()) for t in TABLES}
    assert sum(widths.values()) == 57
    assert widths["fact_sales"] == 24
    assert one(con, "SELECT count(*) FROM fact_sales") > 2000


def test_descriptions_cover_every_table_and_column(
    con: duckdb.DuckDBPyConnection, descriptions: dict[str, Any]
) -> None:
    assert descriptions["reference_date"] == mart.REFERENCE_DATE.isoformat()
    assert sorted(descriptions["tables"]) == sorted(TABLES)
    for name, table in descriptions["tables"].items():
        header = [row[0] for row in con.execute(f"DESCRIBE {name}").fetchall()]
        assert list(table["columns"]) == header, name
        assert table["description"]["zh"] and table["description"]["en"]
        assert set(table["primary_key"]) <= set(header)
        for column in table["columns"].values():
            assert column["zh"] and column["en"]
    sensitive = [
        (name, column)
        for name, table in descriptions["tables"].items()
        for column, info in table["columns"].items()
        if info.get("sensitive")
    ]
    assert sensitive == [("dim_employee", "mobile")]
    mobiles = con.execute("SELECT DISTINCT CAST(mobile AS VARCHAR) FROM dim_employee").fetchall()
    assert all(len(m) == 11 and m.startswith("1") for (m,) in mobiles)
    cost = descriptions["tables"]["fact_sales"]["columns"]["cost_amt"]
    assert "分" in cost["unit"] and "fen" in cost["en"]


def test_status_codes_described_match_the_data(
    con: duckdb.DuckDBPyConnection, descriptions: dict[str, Any]
) -> None:
    values = descriptions["tables"]["fact_sales"]["columns"]["status"]["values"]
    in_data = {r[0] for r in con.execute("SELECT DISTINCT status FROM fact_sales").fetchall()}
    assert in_data == set(values) == {"PAID", "REFUND", "UNPAID"}
    assert values["PAID"]["zh"] == "已支付"


def foreign_keys() -> list[tuple[str, list[str], str, list[str]]]:
    text = documents.read_text(DESCRIPTIONS_NAME)
    tables = json.loads(text)["tables"]
    return [
        (name, fk["columns"], fk["ref_table"], fk["ref_columns"])
        for name, table in tables.items()
        for fk in table["foreign_keys"]
    ]


def test_ten_foreign_keys_are_declared() -> None:
    assert len(foreign_keys()) == 10


@pytest.mark.parametrize(
    "fk", foreign_keys(), ids=[f"{t}.{'+'.join(c)}" for t, c, _r, _rc in foreign_keys()]
)
def test_every_implicit_foreign_key_holds(
    con: duckdb.DuckDBPyConnection, fk: tuple[str, list[str], str, list[str]]
) -> None:
    table, columns, ref_table, ref_columns = fk
    month = columns == ["stat_month"]
    norm = "replace(CAST({} AS VARCHAR), '-', '')" if month else "{}"
    on = " AND ".join(
        f"{norm.format('c.' + a)} = {norm.format('p.' + b)}"
        for a, b in zip(columns, ref_columns, strict=True)
    )
    not_null = " AND ".join(f"c.{a} IS NOT NULL" for a in columns)
    orphans = one(
        con,
        f"SELECT count(*) FROM {table} c WHERE {not_null} AND NOT EXISTS "
        f"(SELECT 1 FROM {ref_table} p WHERE {on})",
    )
    assert orphans == 0
    assert one(con, f"SELECT count(*) FROM {table} c WHERE {not_null}") > 0
    unique = one(
        con, f"SELECT count(*) = count(DISTINCT ({', '.join(ref_columns)})) FROM {ref_table}"
    )
    assert unique, "referenced columns must be a key"


# --- the traps ----------------------------------------------------------------------------------


def test_stat_month_mixes_two_formats_of_the_same_months(con: duckdb.DuckDBPyConnection) -> None:
    dashed, compact, total = con.execute(
        "SELECT count(*) FILTER (WHERE stat_month LIKE '____-__'), "
        "count(*) FILTER (WHERE regexp_full_match(stat_month, '[0-9]{6}')), count(*) "
        "FROM (SELECT CAST(stat_month AS VARCHAR) AS stat_month FROM fact_sales)"
    ).fetchone() or (0, 0, 0)
    assert dashed + compact == total
    assert 0.05 < compact / total < 0.5
    # The same month appears under both spellings (grouping splits it in two).
    both = one(
        con,
        "SELECT count(*) FROM (SELECT replace(CAST(stat_month AS VARCHAR), '-', '') m "
        "FROM fact_sales GROUP BY m HAVING count(DISTINCT stat_month) = 2)",
    )
    assert both == 10
    # Every stat_month agrees with the order date.
    assert (
        one(
            con,
            "SELECT count(*) FROM fact_sales WHERE replace(CAST(stat_month AS VARCHAR), "
            "'-', '') <> strftime(order_date, '%Y%m')",
        )
        == 0
    )


def test_orders_have_several_lines_and_aov_needs_distinct_orders(
    con: duckdb.DuckDBPyConnection,
) -> None:
    lines, orders, widest = con.execute(
        "SELECT count(*), count(DISTINCT order_id), max(n) FROM fact_sales, "
        "(SELECT max(line_no) n FROM fact_sales)"
    ).fetchone() or (0, 0, 0)
    assert lines > 1.5 * orders and widest >= 4
    ranking = (
        "SELECT channel_code FROM fact_sales WHERE status = 'PAID' GROUP BY 1 ORDER BY {} DESC"
    )
    right = [
        r[0]
        for r in con.execute(ranking.format("sum(net_amt) / count(DISTINCT order_id)")).fetchall()
    ]
    wrong = [r[0] for r in con.execute(ranking.format("avg(net_amt)")).fetchall()]
    assert right[0] != wrong[0], "客单价 per line must give a different top channel"


def test_cost_is_in_cents(con: duckdb.DuckDBPyConnection) -> None:
    types = {row[0]: row[1] for row in con.execute("DESCRIBE fact_sales").fetchall()}
    assert types["cost_amt"] in ("BIGINT", "INTEGER") and types["net_amt"] == "DOUBLE"
    right, wrong = con.execute(
        "SELECT (sum(net_amt) - sum(cost_amt) / 100) / sum(net_amt), sum(net_amt - cost_amt) "
        "FROM fact_sales WHERE status = 'PAID'"
    ).fetchone() or (0, 0)
    assert 0.15 < right < 0.5  # a plausible retail gross margin
    assert wrong < 0  # forgetting the unit turns profit into a large loss


REFUND_RATE_SQL = """
SELECT product_code,
       count(DISTINCT order_id) FILTER (WHERE status = 'REFUND')
       / count(DISTINCT order_id) FILTER (WHERE status IN ('PAID', 'REFUND')) AS rate
FROM {sales} GROUP BY 1 ORDER BY rate DESC
"""


def test_some_products_have_a_refund_rate_above_ten_percent(
    con: duckdb.DuckDBPyConnection,
) -> None:
    rates = con.execute(REFUND_RATE_SQL.format(sales="fact_sales")).fetchall()
    high = [code for code, rate in rates if rate > 0.10]
    assert len(high) >= 2
    assert len(high) < len(rates) / 4, "most products must stay below the threshold"
    near = [code for code, rate in rates if 0.05 < rate <= 0.10]
    assert near, "a near miss makes the threshold matter"
    reasons = con.execute(
        "SELECT count(DISTINCT r.reason_code) FROM fact_refund r JOIN fact_sales s "
        f"USING (order_id, line_no) WHERE s.product_code IN {tuple(high)}"
    ).fetchone()
    assert reasons is not None and reasons[0] >= 2


def test_refunds_match_refunded_lines(con: duckdb.DuckDBPyConnection) -> None:
    assert one(con, "SELECT count(*) FROM fact_sales WHERE status = 'REFUND'") == one(
        con, "SELECT count(*) FROM fact_refund"
    )
    bad = one(
        con,
        "SELECT count(*) FROM fact_refund r JOIN fact_sales s USING (order_id, line_no) "
        "WHERE s.status <> 'REFUND' OR r.refund_amt > s.net_amt OR r.refund_amt <= 0 "
        "OR r.refund_date <= s.order_date OR r.refund_date >= DATE '2026-11-15'",
    )
    assert bad == 0
    assert (
        one(
            con,
            "SELECT count(*) FROM fact_refund r JOIN fact_sales s USING (order_id, line_no)"
            " WHERE r.refund_amt < s.net_amt",
        )
        > 0
    ), "damaged goods: partial refunds"


def test_east_china_is_only_a_parent_region_and_last_month_has_profit(
    con: duckdb.DuckDBPyConnection,
) -> None:
    east = one(con, "SELECT region_code FROM dim_region WHERE region_name = '华东'")
    assert one(con, f"SELECT count(*) FROM fact_sales WHERE region_code = '{east}'") == 0
    profit = one(
        con,
        f"""
        SELECT sum(s.net_amt) - sum(s.cost_amt) / 100 FROM fact_sales s
        JOIN dim_region r ON s.region_code = r.region_code
        WHERE r.parent_code = '{east}' AND s.status = 'PAID'
          AND replace(CAST(s.stat_month AS VARCHAR), '-', '') = '202610'""",
    )
    assert profit > 1000


def test_every_category_has_refunds_and_amounts_differ(con: duckdb.DuckDBPyConnection) -> None:
    amounts = con.execute("""
        SELECT c.category_name, sum(r.refund_amt) FROM fact_refund r
        JOIN fact_sales s USING (order_id, line_no) JOIN dim_product p USING (product_code)
        JOIN dim_category c USING (category_code) GROUP BY 1""").fetchall()
    assert len(amounts) == one(con, "SELECT count(*) FROM dim_category")
    assert len({round(a, 2) for _n, a in amounts}) == len(amounts)


def test_a_few_nulls_and_an_unsold_product(con: duckdb.DuckDBPyConnection) -> None:
    ratios = (
        con.execute(
            "SELECT avg((emp_code IS NULL)::INT), avg((customer_id IS NULL)::INT), "
            "avg((pay_method IS NULL)::INT), avg((remark IS NULL)::INT) FROM fact_sales"
        ).fetchone()
        or ()
    )
    emp, customer, pay, remark = ratios
    assert 0 < emp < 0.1 and 0 < customer < 0.2 and 0 < pay < 0.1 and remark > 0.9
    assert (
        one(
            con,
            "SELECT count(*) FROM dim_product p WHERE NOT EXISTS "
            "(SELECT 1 FROM fact_sales s WHERE s.product_code = p.product_code)",
        )
        == 1
    )
    assert one(con, "SELECT count(*) FROM dim_region WHERE parent_code IS NULL") == 4


# --- documents --------------------------------------------------------------------------------


def test_pdf_has_two_pages_and_a_ruled_channel_table(
    corpus: Path, con: duckdb.DuckDBPyConnection
) -> None:
    with pdfplumber.open(corpus / "sales_handbook.pdf") as pdf:
        assert len(pdf.pages) >= 2
        tables = [t for page in pdf.pages for t in page.extract_tables()]
    channel_table = next(t for t in tables if t[0][0] == "Channel")
    codes = {row[1] for row in channel_table[1:]}
    assert codes == {r[0] for r in con.execute("SELECT channel_code FROM dim_channel").fetchall()}
    text = pdf_text(corpus / "sales_handbook.pdf")
    assert "cost_amt" in text and "distinct orders" in text


def test_docx_has_headings_clauses_and_targets_for_every_area(
    corpus: Path, con: duckdb.DuckDBPyConnection
) -> None:
    document = docx.Document(str(corpus / "区域销售制度.docx"))
    styles = {p.style.name for p in document.paragraphs if p.style is not None}
    assert {"Title", "Heading 1"} <= styles
    texts = [p.text for p in document.paragraphs]
    assert any(t.startswith("第一条") for t in texts) and any(t.startswith("3.1") for t in texts)
    (table,) = document.tables
    rows = [[cell.text for cell in row.cells] for row in table.rows]
    areas = {
        r[0]
        for r in con.execute(
            "SELECT region_name FROM dim_region WHERE parent_code IS NULL"
        ).fetchall()
    }
    assert {row[0] for row in rows[1:]} == areas
    for row in rows[1:]:
        quarters = [float(v) for v in row[1:5]]
        assert all(q > 0 for q in quarters)
        assert abs(sum(quarters) - float(row[5])) < 0.05
    # Targets are plausible against the data: Q1-Q3 completion between 80% and 120%.
    for row in rows[1:]:
        for quarter in (1, 2, 3):
            actual = one(
                con,
                f"""SELECT sum(s.net_amt) FROM fact_sales s
                JOIN dim_region c ON s.region_code = c.region_code
                JOIN dim_region a ON c.parent_code = a.region_code JOIN dim_date d
                ON replace(CAST(s.stat_month AS VARCHAR), '-', '') = replace(d.stat_month, '-', '')
                WHERE a.region_name = '{row[0]}' AND d.quarter = {quarter}
                AND s.status = 'PAID'""",
            )
            assert 0.8 < actual / (float(row[quarter]) * 10_000) < 1.2, (row[0], quarter)
    text = docx_text(corpus / "区域销售制度.docx")
    for (name,) in con.execute("SELECT channel_name FROM dim_channel").fetchall():
        assert name in text


def test_markdown_policies_answer_the_hybrid_questions(
    corpus: Path, con: duckdb.DuckDBPyConnection
) -> None:
    policy = (corpus / "退货政策.md").read_text("utf-8")
    assert "第一条" in policy and "11.2 退货率超过 10% 的商品" in policy
    for (name,) in con.execute("SELECT category_name FROM dim_category").fetchall():
        assert name in policy
    for (reason,) in con.execute("SELECT reason_name FROM dim_refund_reason").fetchall():
        assert reason in policy
    english = (corpus / "refund_policy.md").read_text("utf-8")
    assert "damaged goods" in english.lower() and "第" not in english
    metrics = (corpus / "指标口径.md").read_text("utf-8")
    assert "| 指标 | 计算公式 | 负责部门 |" in metrics
    for metric in ("| 毛利 |", "| 客单价 |", "| 退货率 |", "| 库存周转天数 |"):
        assert metric in metrics
    assert "COUNT(DISTINCT order_id)" in metrics and "cost_amt) / 100" in metrics


def test_markdown_parser_keeps_clauses_and_tables_apart() -> None:
    blocks = documents.parse_markdown(documents.read_text("sales_handbook_en.md"))
    kinds = [b.kind for b in blocks]
    assert kinds.count("table") == 2
    assert blocks[0].kind == "heading" and blocks[0].level == 1
    assert any(b.text.startswith("3.2 Discounts") for b in blocks)
    # Wrapped lines are joined; a line starting with a number is not a clause by itself.
    assert not any(b.text.startswith("15 November") for b in blocks)


# --- CLI ----------------------------------------------------------------------------------------


@pytest.fixture
def app() -> typer.Typer:
    from tablerag.cli.sample import register  # imports the whole CLI package

    application = typer.Typer()

    @application.callback()
    def main() -> None:
        """Test app."""

    register(application)
    return application


def test_cli_writes_and_lists_the_files(app: typer.Typer, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["sample", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    assert "fact_sales.csv" in result.output and "sales_handbook.pdf" in result.output
    assert (tmp_path / "out" / "区域销售制度.docx").is_file()


def test_cli_refuses_a_file(app: typer.Typer, tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("x")
    result = CliRunner().invoke(app, ["sample", str(tmp_path / "f.txt")])
    assert result.exit_code == 2 and "is a file" in " ".join(result.output.split())


def test_cli_json_lists_paths(app: typer.Typer, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["sample", str(tmp_path / "out"), "--json", "--seed", "3"])
    assert result.exit_code == 0, result.output
    paths = [Path(p) for p in json.loads(result.output)]
    assert len(paths) == len(TABLES) + len(DOCUMENTS) + 3 and all(p.is_file() for p in paths)


def test_cli_refuses_a_non_empty_folder_unless_forced(app: typer.Typer, tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine")
    refused = CliRunner().invoke(app, ["sample", str(tmp_path)])
    assert refused.exit_code == 2
    message = " ".join(refused.output.split())  # undo rich's line wrapping
    assert "is not empty" in message and "--force" in message
    assert not (tmp_path / "fact_sales.csv").exists()
    forced = CliRunner().invoke(app, ["sample", str(tmp_path), "--force"])
    assert forced.exit_code == 0, forced.output
    assert (tmp_path / "fact_sales.csv").is_file() and (tmp_path / "keep.txt").is_file()
