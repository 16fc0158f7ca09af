"""Write the second user-data set's folder: a clinic's workbook and rules, a freight company's
waybills, customer list and service terms, spoiled as people's files are.

- ``华康诊所_2026年1-4月运营.xlsx``: three sheets (预约记录, 收费明细, 医生), the first two
  under a merged title row and a note row; appointment dates as date cells and as text in two
  other spellings (``2026/2/3``, ``2026年2月3日``); a footnote under the invoices;
- ``诊所预约与收费管理办法.md``: clauses (第一条…) with a definitions chapter (有效预约, 爽约率,
  次均费用, 个人自付);
- ``运单明细_2026.csv``: GBK, dates in three spellings, weights and freight with thousands
  separators, 货值 written ``2.35万`` from 10,000 up;
- ``customers.csv``: UTF-8 with a byte-order mark and CRLF line ends;
- ``Service_Terms_2026.docx``: English terms with a table of promised days and compensation.

The bytes depend only on the seed (fixed document timestamps).
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Callable
from pathlib import Path

import docx
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font

from tablerag.evals.userdata.files import FIXED_TIME, fixed_zip
from tablerag.evals.userdata.v2.data import CUSTOMERS, DOCTORS, SEED, Records, build

WORKBOOK = "华康诊所_2026年1-4月运营.xlsx"
RULES = "诊所预约与收费管理办法.md"
WAYBILLS = "运单明细_2026.csv"
CUSTOMER_FILE = "customers.csv"
TERMS = "Service_Terms_2026.docx"

CLINIC_RULES = """# 华康社区诊所预约与收费管理办法

## 第一章 定义

第一条 本办法所称"有效预约"，是指状态为"已就诊"或"爽约"的预约；已取消的预约不属于有效预约。

第二条 爽约率 = 爽约次数 ÷ 有效预约次数。

第三条 次均费用 = 收费金额合计 ÷ 已就诊人次（每条已就诊的预约计一人次）。

第四条 个人自付 = 收费金额 − 医保支付。

## 第二章 预约

第五条 患者可提前14天通过电话或诊所小程序预约。

第六条 患者如需取消预约，须在就诊时间前24小时办理；连续三次爽约的患者，60天内不得在线预约。

第七条 儿科每日限号40个，其他科室每日限号60个。

## 第三章 收费

第八条 口腔科诊疗项目不纳入医保报销范围，费用由患者个人自付。

第九条 单张发票金额超过2000元的，须由科室主任签字确认。

第十条 退费须在开票之日起30日内凭原发票办理，逾期不予退费。

第十一条 挂号费标准：主任医师80元，副主任医师50元，主治医师30元，医师20元。

第十二条 本办法由诊所办公室负责解释，自2026年1月1日起施行。
"""

TERMS_CLAUSES: tuple[str, ...] = (
    "1. Definitions. A shipment is on time when it is signed for within the promised number of "
    "days after its ship date. The on-time rate is the number of on-time shipments divided by "
    "the number of signed-for shipments; returned shipments and shipments still in transit are "
    "not counted.",
    "2. Promised delivery times and compensation for late delivery by service are set out in "
    "the table below.",
    "[TABLE]",
    "3. Compensation for late delivery is capped at 50% of the freight of the shipment.",
    "4. Claims for damaged or missing goods must be filed within 7 days of delivery.",
    "5. Goods with a declared value above 50,000 yuan must be insured by the customer before "
    "shipping.",
    "6. These terms take effect on 1 January 2026 and are interpreted by the Operations "
    "Department of Shunda Logistics.",
)
SERVICE_TABLE: tuple[tuple[str, str, str], ...] = (
    ("Service", "Promised delivery (days)", "Compensation per day late"),
    ("Standard (标准)", "5", "5% of the freight"),
    ("Express (加急)", "2", "10% of the freight"),
)
PROMISED_DAYS = {"标准": 5, "加急": 2}
"""The table's promised days by the waybills' service names (for :mod:`.truth`)."""


def write_files(directory: Path, *, seed: int = SEED) -> list[Path]:
    """Write every file of the set into ``directory`` (created when missing).

    Returns:
        The paths written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    data = build(seed)
    writers: tuple[tuple[str, Callable[[Records, Path], object]], ...] = (
        (WORKBOOK, _workbook),
        (RULES, lambda _, p: p.write_bytes(CLINIC_RULES.encode("utf-8"))),
        (WAYBILLS, _waybills),
        (CUSTOMER_FILE, _customers),
        (TERMS, _terms),
    )
    paths = []
    for name, write in writers:
        write(data, directory / name)
        paths.append(directory / name)
    return paths


def date_text(day: dt.date, style: int) -> str:
    """``day`` in one of three spellings people mix in one column.

    Example:
        >>> [date_text(dt.date(2026, 2, 3), s) for s in range(3)]
        ['2026/2/3', '2026-02-03', '2026年2月3日']
    """
    if style % 3 == 0:
        return f"{day.year}/{day.month}/{day.day}"
    if style % 3 == 1:
        return day.isoformat()
    return f"{day.year}年{day.month}月{day.day}日"


def amount_text(value: float, decimals: int = 2) -> str:
    """A figure with thousands separators, as spreadsheets export it.

    Example:
        >>> amount_text(3450.5), amount_text(1250.5, 1)
        ('3,450.50', '1,250.5')
    """
    return f"{value:,.{decimals}f}"


def wan_text(value: int) -> str:
    """货值 as people type it: ``2.35万`` from 10,000 up (at most four decimals, so exact),
    otherwise with a thousands separator.

    Example:
        >>> wan_text(23500), wan_text(8600), wan_text(10001)
        ('2.35万', '8,600', '1.0001万')
    """
    if value < 10_000:
        return f"{value:,}"
    return f"{value / 10_000:.4f}".rstrip("0").rstrip(".") + "万"


def _titled(sheet: object, title: str, note: str, header: list[str]) -> None:
    sheet.append([title])  # type: ignore[attr-defined]
    sheet.append([note])  # type: ignore[attr-defined]
    sheet.append(header)  # type: ignore[attr-defined]
    last = chr(ord("A") + len(header) - 1)
    sheet.merge_cells(f"A1:{last}1")  # type: ignore[attr-defined]
    cell = sheet["A1"]  # type: ignore[index]
    cell.alignment = Alignment(horizontal="center")
    cell.font = Font(bold=True, size=14)


def _workbook(data: Records, path: Path) -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None  # a new workbook has its first sheet
    sheet.title = "预约记录"
    _titled(
        sheet,
        "华康社区诊所 预约记录（2026年1月—4月）",
        "制表：诊所办公室　单位：人次",
        ["预约号", "患者编号", "医生", "预约日期", "状态"],
    )
    for i, a in enumerate(data.appointments):
        # half the dates are date cells, the rest text as typed by hand in two spellings
        day: object = a.day if i % 2 == 0 else date_text(a.day, 0 if i % 4 == 1 else 2)
        sheet.append([a.appt_id, a.patient, a.doctor, day, a.status])
        if i % 2 == 0:
            sheet.cell(row=sheet.max_row, column=4).number_format = "yyyy-mm-dd"
    fees = book.create_sheet("收费明细")
    _titled(
        fees,
        "收费明细",
        "单位：元",
        ["发票号", "预约号", "收费项目", "金额", "医保支付"],
    )
    for inv in data.invoices:
        fees.append([inv.invoice_id, inv.appt_id, inv.item, inv.amount, inv.insured])
    fees.append([])
    fees.append(["注：金额含医保支付部分；口腔科项目不纳入医保。"])
    doctors = book.create_sheet("医生")
    doctors.append(["医生编号", "姓名", "科室", "职称", "挂号费（元）"])
    for d in DOCTORS:
        doctors.append(list(d))
    book.properties.created = book.properties.modified = FIXED_TIME
    buffer = io.BytesIO()
    book.save(buffer)
    path.write_bytes(fixed_zip(buffer.getvalue()))


def _waybills(data: Records, path: Path) -> None:
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\r\n")
    out.writerow(
        [
            "运单号",
            "发货日期",
            "客户",
            "服务类型",
            "始发城市",
            "目的城市",
            "重量（kg）",
            "运费（元）",
            "货值",
            "状态",
            "签收日期",
        ]
    )
    for i, s in enumerate(data.shipments):
        out.writerow(
            [
                s.waybill,
                date_text(s.shipped, i),
                s.customer,
                s.service,
                s.origin,
                s.destination,
                amount_text(s.weight_kg, 1),
                amount_text(s.freight),
                wan_text(s.declared),
                s.status,
                date_text(s.signed, i) if s.signed else "",
            ]
        )
    path.write_bytes(buffer.getvalue().encode("gbk"))


def _customers(_: Records, path: Path) -> None:
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\r\n")
    out.writerow(["customer", "industry", "city", "since", "tier"])
    for name, industry, city, since, tier in CUSTOMERS:
        out.writerow([name, industry, city, since.isoformat(), tier])
    path.write_bytes(b"\xef\xbb\xbf" + buffer.getvalue().encode("utf-8"))


def _terms(_: Records, path: Path) -> None:
    document = docx.Document()
    document.add_heading("Shunda Logistics — Terms of Service 2026", level=0)
    for clause in TERMS_CLAUSES:
        if clause == "[TABLE]":
            table = document.add_table(rows=len(SERVICE_TABLE), cols=3, style="Table Grid")
            for cells, values in zip(table.rows, SERVICE_TABLE, strict=True):
                for cell, value in zip(cells.cells, values, strict=True):
                    cell.text = value
        else:
            document.add_paragraph(clause)
    props = document.core_properties
    props.title, props.author = "Terms of Service 2026", "Operations Department"
    props.created = props.modified = FIXED_TIME
    props.revision = 1
    buffer = io.BytesIO()
    document.save(buffer)
    path.write_bytes(fixed_zip(buffer.getvalue()))
