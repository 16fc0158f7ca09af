"""SQL extraction from replies the local model really wrote (CHASE, Chinese names)."""

from __future__ import annotations

import pytest
import sqlglot
from sqlglot import exp

from tablerag.nl2sql.sqltext import extract_sql


@pytest.mark.parametrize(
    ("reply", "tables"),
    [
        ("```sql\nSELECT演唱会名称, 主题 FROM演唱会;\n```", {"演唱会"}),
        ("SELECT唱片公司 FROM管弦乐队 WHERE成立年份 < 2003", {"管弦乐队"}),
        (
            "```sql\nSELECT S.名字 FROM歌手 S JOIN歌手举办演唱会 SP ON S.歌手ID = SP.歌手ID "
            "WHERE SP.演唱会ID IN (SELECT演唱会ID FROM演唱会 WHERE 年份 = '2014')\n```",
            {"歌手", "歌手举办演唱会", "演唱会"},
        ),
        ("SELECT国籍, COUNT(*) FROM歌手 GROUP BY国籍 ORDER BY COUNT(*) DESC LIMIT 1", {"歌手"}),
    ],
)
def test_keywords_written_against_chinese_names_are_read(reply: str, tables: set[str]) -> None:
    sql = extract_sql(reply, dialect="sqlite")
    assert sql is not None
    tree = sqlglot.parse_one(sql, read="sqlite")
    assert {t.name for t in tree.find_all(exp.Table)} == tables


def test_quoted_text_keeps_its_spelling() -> None:
    sql = extract_sql("SELECT 名字 FROM 歌手 WHERE 备注 = 'AND其他'", dialect="sqlite")
    assert sql == "SELECT 名字 FROM 歌手 WHERE 备注 = 'AND其他'"
