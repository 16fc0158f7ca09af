"""Write the third user-data set's folder: a training school's enrollment workbook, its
attendance export, its student handbook and its instructor handbook, spoiled as people's files
are.

- ``启航培训_2026春季报名.xlsx``: two sheets; 报名记录 under a merged title row and a note row,
  enrollment dates as date cells and as text in two other spellings (``2026/2/3``,
  ``2026年2月3日``), 结业成绩 blank unless the student graduated, a footnote under the rows;
  课程 a plain list of the courses;
- ``attendance_2026H1.csv``: UTF-16 with a byte-order mark (Excel's "Unicode text"), an English
  header over Chinese-coded rows, dates written ``DD.MM.YYYY``;
- ``学员手册_2026版.docx``: clauses (第一条…) in chapters with a table of subsidies per course
  category;
- ``Instructor_Handbook_2026.pdf``: English numbered rules on pay, class size and substitutes.

The bytes depend only on the seed (fixed document timestamps).
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from pathlib import Path
from xml.sax.saxutils import escape

import docx
from openpyxl import Workbook
from openpyxl.styles import Alignment, Font
from reportlab.lib.pagesizes import A4
from reportlab.lib.styles import getSampleStyleSheet
from reportlab.lib.units import mm
from reportlab.platypus import Flowable, Paragraph, SimpleDocTemplate, Spacer

from tablerag.evals.userdata.files import FIXED_TIME, fixed_zip
from tablerag.evals.userdata.v2.files import date_text
from tablerag.evals.userdata.v3.data import COURSES, SEED, Records, build

WORKBOOK = "启航培训_2026春季报名.xlsx"
ATTENDANCE_FILE = "attendance_2026H1.csv"
HANDBOOK = "学员手册_2026版.docx"
INSTRUCTORS = "Instructor_Handbook_2026.pdf"

HANDBOOK_CLAUSES: tuple[str, ...] = (
    "# 第一章 总则",
    "第一条 本手册适用于启航职业技能培训学校全体在册学员。",
    "# 第二章 考勤与结业",
    "第二条 出勤率 = 出勤次数 ÷ 应到次数。应到次数为考勤记录中出勤（present）、缺勤（absent）"
    "和请假（excused）次数之和；请假不计为出勤。",
    "第三条 学员出勤率不低于80%且结业考核成绩不低于60分的，方可获得结业证书。",
    "第四条 结业考核不及格的学员可申请补考一次，补考费为每人200元。",
    "# 第三章 报名与退费",
    "第五条 在开课前30天以上报名的学员享受早鸟优惠，学费按九折收取。",
    "第六条 每个教学班的班额不超过30人。",
    "第七条 开课前申请退学的，全额退还学费；开课后7日内申请退学的，退还所缴学费的70%；"
    "开课超过7日申请退学的，不予退费。",
    "# 第四章 证书与补贴",
    "第八条 取得结业证书的学员，可在结业之日起90天内申请政府职业技能培训补贴，补贴标准见下表。",
    "[TABLE]",
    "第九条 结业证书遗失的，可申请补办，补办费50元，5个工作日内办结。",
    "第十条 本手册由学校教务处负责解释，自2026年1月1日起施行。",
)
SUBSIDIES: tuple[tuple[str, str], ...] = (
    ("课程类别", "补贴标准（元/人）"),
    ("信息技术", "1500"),
    ("烹饪", "1200"),
    ("电工", "800"),
    ("财会", "1000"),
)
"""The handbook's subsidy table (第八条)."""

INSTRUCTOR_RULES: tuple[str, ...] = (
    "1. Teaching pay. Lead instructors are paid 180 yuan per teaching hour; teaching assistants "
    "are paid 120 yuan per teaching hour.",
    "2. Pay day. Teaching pay for a month is paid within 10 working days after the end of that "
    "month.",
    "3. Minimum class size. A class opens only when at least 8 students have enrolled; "
    "otherwise its start is postponed to the next intake.",
    "4. Substitutes. An instructor who cannot teach a session must request a substitute at "
    "least 48 hours in advance through the Academic Affairs Office.",
    "5. Course evaluation. A course whose average student evaluation is below 3.5 out of 5 is "
    "reviewed by the Academic Affairs Office before it is offered again.",
    "6. Safety training. Instructors of the cooking and electrician courses must renew their "
    "safety training every 12 months.",
    "7. These rules take effect on 1 January 2026.",
)
LEAD_HOURLY_PAY = 180
"""The instructor handbook's pay of a lead instructor per teaching hour (rule 1; for
:mod:`.truth`)."""


def write_files(directory: Path, *, seed: int = SEED) -> list[Path]:
    """Write every file of the set into ``directory`` (created when missing).

    Returns:
        The paths written.
    """
    directory.mkdir(parents=True, exist_ok=True)
    data = build(seed)
    writers: tuple[tuple[str, Callable[[Records, Path], object]], ...] = (
        (WORKBOOK, _workbook),
        (ATTENDANCE_FILE, _attendance),
        (HANDBOOK, _handbook),
        (INSTRUCTORS, _instructors),
    )
    paths = []
    for name, write in writers:
        write(data, directory / name)
        paths.append(directory / name)
    return paths


def dotted(day: object) -> str:
    """A date as ``DD.MM.YYYY``, as a European-set spreadsheet exports it.

    Example:
        >>> import datetime as dt
        >>> dotted(dt.date(2026, 3, 4))
        '04.03.2026'
    """
    return f"{day:%d.%m.%Y}"


def _workbook(data: Records, path: Path) -> None:
    book = Workbook()
    sheet = book.active
    assert sheet is not None  # a new workbook has its first sheet
    sheet.title = "报名记录"
    header = ["报名号", "学员编号", "课程代码", "报名日期", "实收学费", "备注", "状态", "结业成绩"]
    sheet.append(["启航职业技能培训学校 2026年春季报名记录"])
    sheet.append(["制表：教务处　金额单位：元"])
    sheet.append(header)
    sheet.merge_cells(f"A1:{chr(ord('A') + len(header) - 1)}1")
    sheet["A1"].alignment = Alignment(horizontal="center")
    sheet["A1"].font = Font(bold=True, size=14)
    for i, e in enumerate(data.enrollments):
        # a third are date cells, the rest text typed by hand in two spellings
        day: object = e.day if i % 3 == 0 else date_text(e.day, 0 if i % 3 == 1 else 2)
        sheet.append([e.enroll_id, e.student, e.course, day, e.paid, e.note, e.status, e.score])
        if i % 3 == 0:
            sheet.cell(row=sheet.max_row, column=4).number_format = "yyyy-mm-dd"
    sheet.append([])
    sheet.append(["注：早鸟九折为开课前30天以上报名的优惠价；退学学员的退费另行登记。"])
    courses = book.create_sheet("课程")
    courses.append(["课程代码", "课程名称", "类别", "课时", "学费（元）", "主讲讲师"])
    for c in COURSES:
        courses.append(list(c))
    book.properties.created = book.properties.modified = FIXED_TIME
    buffer = io.BytesIO()
    book.save(buffer)
    path.write_bytes(fixed_zip(buffer.getvalue()))


def _attendance(data: Records, path: Path) -> None:
    buffer = io.StringIO()
    out = csv.writer(buffer, lineterminator="\r\n")
    out.writerow(["date", "enrollment_id", "student", "course", "hours", "status"])
    for a in data.attendance:
        out.writerow([dotted(a.day), a.enroll_id, a.student, a.course, a.hours, a.status])
    path.write_bytes(buffer.getvalue().encode("utf-16"))  # with its byte-order mark


def _handbook(_: Records, path: Path) -> None:
    document = docx.Document()
    document.add_heading("启航职业技能培训学校 学员手册（2026版）", level=0)
    for clause in HANDBOOK_CLAUSES:
        if clause == "[TABLE]":
            table = document.add_table(rows=len(SUBSIDIES), cols=2, style="Table Grid")
            for cells, values in zip(table.rows, SUBSIDIES, strict=True):
                for cell, value in zip(cells.cells, values, strict=True):
                    cell.text = value
        elif clause.startswith("# "):
            document.add_heading(clause[2:], level=1)
        else:
            document.add_paragraph(clause)
    props = document.core_properties
    props.title, props.author = "学员手册（2026版）", "教务处"
    props.created = props.modified = FIXED_TIME
    props.revision = 1
    buffer = io.BytesIO()
    document.save(buffer)
    path.write_bytes(fixed_zip(buffer.getvalue()))


def _instructors(_: Records, path: Path) -> None:
    styles = getSampleStyleSheet()
    story: list[Flowable] = [
        Paragraph("Qihang Vocational Training School: Instructor Handbook 2026", styles["Title"]),
        Spacer(1, 3 * mm),
    ]
    story += [Paragraph(escape(rule), styles["BodyText"]) for rule in INSTRUCTOR_RULES]
    doc = SimpleDocTemplate(
        str(path),
        pagesize=A4,
        invariant=True,
        title="Instructor Handbook 2026",
        author="Academic Affairs Office",
        topMargin=20 * mm,
        bottomMargin=20 * mm,
    )
    doc.build(story)
