"""Write the user-data evaluation's folder: ordinary, messy files as a new user has them.

- ``订单明细.csv``: GBK-encoded, a Chinese header without BOM, order lines of three channels;
- ``员工薪资.xlsx``: a merged two-row header, a 合计 totals row, a second sheet of departments;
- ``warranty_report.pdf``: narrative text and an 80-row claims table over three pages, its
  header repeated on each page;
- ``差旅报销制度.docx``: a policy of clauses (第一条…) with a table of allowances per city tier;
- ``payments.csv``: ``MM/DD/YYYY`` dates (some days above 12) and amounts with thousands
  separators;
- ``客服FAQ.md``: question–answer pairs; ``指标口径.md``: how 客单价 and 退款率 are defined.

The bytes depend only on the seed (fixed document timestamps), so a run can be repeated.
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from xml.sax.saxutils import escape

import docx
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, SimpleDocTemplate, Spacer, Table, TableStyle

from tablerag.evals.userdata.data import (
    DEPARTMENTS,
    EMPLOYEES,
    SEED,
    TRAVEL_TIERS,
    UserData,
    build,
)

FIXED_TIME = datetime(2026, 4, 1, 9, 0, 0)

POLICY_CLAUSES: tuple[str, ...] = (
    "第一条 为规范公司员工出差及差旅费用报销管理，特制定本制度。",
    "第二条 本制度适用于公司全体正式员工。",
    "第三条 员工出差须事先提交出差申请，经部门负责人批准后方可出行。",
    "第四条 出差人员乘坐飞机一律为经济舱；乘坐火车可选二等座。",
    "第五条 住宿费按下表标准凭发票实报实销，超出标准部分由个人承担；伙食补助按出差天数定额发放。",
    "[TIERS]",
    "第六条 员工应在出差结束后十五个工作日内提交报销单，逾期不予报销。",
    "第七条 单次报销金额超过5000元的，须经总经理审批。",
    "第八条 本制度由财务部负责解释，自2026年1月1日起施行。",
)

FAQ = """# 客服常见问题（FAQ）

## 商品签收后多少天内可以申请无理由退货？
自签收之日起7天内可以申请无理由退货，商品须保持完好。

## 退款多久到账？
退货商品验收合格后，退款在3个工作日内原路退回。

## 如何开具发票？
在订单详情页点击"申请发票"，电子发票在24小时内发送到您的邮箱。

## What are the customer service hours?
Our hotline 400-820-1234 is open from 9:00 to 21:00, seven days a week.

## Do you ship to Hong Kong?
Yes. Orders to Hong Kong are delivered within 5 business days; shipping is free above 299 yuan.
"""

METRICS = """# 指标口径说明

## 客单价
客单价 = 已支付订单的订单金额合计 ÷ 已支付订单数。已退款、已取消的订单不计入客单价。

## 退款率
退款率 = 已退款订单数 ÷ 全部订单数。
"""

PDF_INTRO: tuple[str, ...] = (
    "This report lists every warranty claim filed in the first quarter of 2026 (January to "
    "March). Claims are accepted within 24 months of the purchase date.",
    "Claims were processed in 6.5 days on average. The claims team is led by Maria Lopez, "
    "who approves every claim above 5,000 yuan.",
)
PDF_OUTRO = (
    "Next review: the claims process will be reviewed again in July 2026, together with the "
    "regional service partners."
)


def write_userdata(directory: Path, *, seed: int = SEED) -> list[Path]:
    """Write every file of the evaluation into ``directory`` (created when missing).

    Returns:
        The paths written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    data = build(seed)
    writers: tuple[tuple[str, Callable[[UserData, Path], object]], ...] = (
        ("订单明细.csv", _orders_csv),
        ("员工薪资.xlsx", _workbook),
        ("warranty_report.pdf", _claims_pdf),
        ("差旅报销制度.docx", _policy_docx),
        ("payments.csv", _payments_csv),
        ("客服FAQ.md", lambda _, p: p.write_bytes(FAQ.encode("utf-8"))),
        ("指标口径.md", lambda _, p: p.write_bytes(METRICS.encode("utf-8"))),
    )
    paths = []
    for name, write in writers:
        write(data, directory / name)
        paths.append(directory / name)
    return paths


def _orders_csv(data: UserData, path: Path) -> None:
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\r\n")
    out.writerow(["订单号", "下单日期", "渠道", "订单状态", "订单金额"])
    for o in data.orders:
        out.writerow([o.order_id, o.day.isoformat(), o.channel, o.status, f"{o.amount:.2f}"])
    path.write_bytes(buffer.getvalue().encode("gbk"))


def _payments_csv(data: UserData, path: Path) -> None:
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\n")
    out.writerow(["payment_id", "paid_on", "customer", "amount"])
    for p in data.payments:
        out.writerow([p.payment_id, p.day.strftime("%m/%d/%Y"), p.customer, f"{p.amount:,.2f}"])
    path.write_bytes(buffer.getvalue().encode("utf-8"))


def _workbook(_: UserData, path: Path) -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None  # a new workbook has its first sheet
    sheet.title = "工资表"
    sheet.append(["员工信息", None, None, "薪酬（元）", None])
    sheet.append(["工号", "姓名", "部门", "月薪", "绩效奖金"])
    sheet.merge_cells("A1:C1")
    sheet.merge_cells("D1:E1")
    for cell in (sheet["A1"], sheet["D1"]):
        cell.alignment = Alignment(horizontal="center")
        cell.font = Font(bold=True)
    for row in EMPLOYEES:
        sheet.append(list(row))
    n = len(EMPLOYEES)
    sheet.append(["合计", None, None, sum(r[3] for r in EMPLOYEES), sum(r[4] for r in EMPLOYEES)])
    sheet.cell(row=n + 3, column=1).font = Font(bold=True)
    depts = book.create_sheet("部门")
    depts.append(["部门", "负责人", "办公地点"])
    for dept in DEPARTMENTS:
        depts.append(list(dept))
    book.properties.created = book.properties.modified = FIXED_TIME
    buffer = io.BytesIO()
    book.save(buffer)
    path.write_bytes(fixed_zip(buffer.getvalue()))


def _claims_pdf(data: UserData, path: Path) -> None:
    styles = getSampleStyleSheet()
    story: list[Flowable] = [Paragraph("Warranty Claims Report, Q1 2026", styles["Title"])]
    story += [Paragraph(escape(text), styles["BodyText"]) for text in PDF_INTRO]
    rows = [["Claim ID", "Product", "Region", "Filed", "Amount"]]
    rows += [
        [c.claim_id, c.product, c.region, c.filed.isoformat(), f"{c.amount:.2f}"]
        for c in data.claims
    ]
    table = Table(rows, repeatRows=1, hAlign="LEFT")
    table.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.5, colors.black),
                ("BACKGROUND", (0, 0), (-1, 0), colors.lightgrey),
                ("FONTNAME", (0, 0), (-1, 0), "Helvetica-Bold"),
                ("FONTSIZE", (0, 0), (-1, -1), 9),
            ]
        )
    )
    story += [Spacer(1, 3 * mm), table, Spacer(1, 3 * mm)]
    story.append(Paragraph(escape(PDF_OUTRO), styles["BodyText"]))
    doc = SimpleDocTemplate(
        str(path),
        pagesize=A4,
        invariant=True,
        title="Warranty Claims Report",
        author="Service Department",
        topMargin=20 * mm,
        bottomMargin=20 * mm,
    )
    doc.build(story)


def _policy_docx(_: UserData, path: Path) -> None:
    document = docx.Document()
    document.add_heading("差旅费报销管理制度", level=0)
    for clause in POLICY_CLAUSES:
        if clause == "[TIERS]":
            rows = [("城市等级", "住宿标准（元/晚）", "伙食补助（元/天）")]
            rows += [(tier, str(room), str(meal)) for tier, room, meal in TRAVEL_TIERS]
            table = document.add_table(rows=len(rows), cols=3, style="Table Grid")
            for cells, values in zip(table.rows, rows, strict=True):
                for cell, value in zip(cells.cells, values, strict=True):
                    cell.text = value
        else:
            document.add_paragraph(clause)
    props = document.core_properties
    props.title, props.author = "差旅费报销管理制度", "财务部"
    props.created = props.modified = FIXED_TIME
    props.revision = 1
    buffer = io.BytesIO()
    document.save(buffer)
    path.write_bytes(fixed_zip(buffer.getvalue()))


def fixed_zip(data: bytes) -> bytes:
    """The archive again with constant member timestamps and a constant modified time in
    ``docProps/core.xml`` (the writers stamp the clock: openpyxl sets ``modified`` on save)."""
    stamp = FIXED_TIME.strftime("%Y-%m-%dT%H:%M:%SZ").encode()
    modified = re.compile(rb"(<dcterms:modified[^>]*>)[^<]*(</dcterms:modified>)")
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(data)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for info in source.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED_TIME.timetuple()[:6])
            fixed.compress_type = zipfile.ZIP_DEFLATED
            body = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                body = modified.sub(lambda m: m.group(1) + stamp + m.group(2), body)
            target.writestr(fixed, body)
    return out.getvalue()
