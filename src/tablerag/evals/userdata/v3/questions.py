"""The third user-data set's questions (``--set v3``): written as templates before any answer
was computed; every expected value of a data question computed by :mod:`.truth` from the
generator's records, every document answer read off the text :mod:`.files` writes.

Kinds: ``count``, ``sum``, ``average``, ``defined`` (出勤率 as the student handbook defines
it), ``topk``, ``period`` (a month, or 上个月 / this month against the pinned
:data:`~tablerag.evals.userdata.v3.data.TODAY`), ``join`` (across the workbook's sheets),
``clause`` (a rule a clause states), ``prose_number`` (a number stated in prose), ``doc_table``
(a number in the handbook's subsidy table), ``yes_no`` (a case the rules decide), ``mixed`` (a
figure from the data and the rule that applies), ``unanswerable``. The document-only kinds are
``clause``, ``prose_number``, ``doc_table`` and ``yes_no``. The dev / held-out split is
:mod:`..split`'s: read no held-out question while changing code.

A rate's figure group holds the percentage and the fraction. A document question names its
passage twice: ``source`` for a reader, ``passage`` (a phrase of the ingested chunk) for the
run's check of what retrieval found. A data question's gold SQL, over the tables ingest gives
today (``tablerag tables``), feeds the ``tablerag-oracle`` method; the tests check it gives the
truth on a freshly ingested workspace (for a ``mixed`` question: its first figure). The
workbook's footnote is a row of 报名记录 with no course, so the gold SQL counts by 课程代码.
Scoring reads only ``numbers`` and ``facts``.
"""

from __future__ import annotations

from tablerag.evals.userdata.questions import Question

_E = "报名记录"
_C = "课程"
_A = "attendance_2026h1"
_HANDBOOK = "学员手册_2026版.docx"
_PDF = "Instructor_Handbook_2026.pdf"
_RATE = "请假不计为出勤"
_TABLE = "补贴标准（元/人）"
_REFUND = "开课后7日内申请退学的，退还所缴学费的70%"
_EARLY = "在开课前30天以上报名的学员享受早鸟优惠"
_LEAD = "Lead instructors are paid 180 yuan per teaching hour"
_NO = ("No,", "No.", "No ", "not", "不能", "不可以", "无法", "不予", "不退")
"""Spellings of a "no" (a yes/no question's answer)."""
_ATTENDED = (
    "100.0 * COUNT(*) FILTER (WHERE status = 'present') / COUNT(*) FILTER "
    "(WHERE status IN ('present', 'absent', 'excused'))"
)

QUESTIONS: tuple[Question, ...] = (
    # the enrollment workbook (报名记录, 课程) and the attendance export
    Question(
        "k-01",
        "报名记录表里一共有多少条报名？",
        "count",
        numbers=((160,),),
        sql=f"SELECT COUNT(课程代码) FROM {_E}",
    ),
    Question(
        "k-02",
        "How many enrollments have the status 退学 (dropped out)?",
        "count",
        numbers=((25,),),
        sql=f"SELECT COUNT(*) FROM {_E} WHERE 状态 = '退学'",
    ),
    Question(
        "k-03",
        "已结业学员的平均结业成绩是多少分？",
        "average",
        numbers=((72.78,),),
        sql=f"SELECT AVG(结业成绩) FROM {_E} WHERE 状态 = '已结业'",
    ),
    Question(
        "k-04",
        "What is the total tuition actually collected (实收学费) across all enrollments?",
        "sum",
        numbers=((490440,),),
        sql=f"SELECT SUM(实收学费) FROM {_E}",
    ),
    Question(
        "k-05",
        "信息技术类课程的实收学费合计是多少元？",
        "join",
        numbers=((222090,),),
        sql=(
            f"SELECT SUM(e.实收学费) FROM {_E} e JOIN {_C} c ON c.课程代码 = e.课程代码 "
            "WHERE c.类别 = '信息技术'"
        ),
    ),
    Question(
        "k-06",
        "Which course has the most enrollments?",
        "topk",
        facts=(("PY101", "Python数据分析"),),
        sql=(
            f"SELECT c.课程代码, c.课程名称 FROM {_E} e JOIN {_C} c ON c.课程代码 = e.课程代码 "
            "GROUP BY c.课程代码, c.课程名称 ORDER BY COUNT(*) DESC LIMIT 1"
        ),
    ),
    Question(
        "k-07",
        "实收学费合计最高的前三门课程是哪几门？",
        "topk",
        facts=(("PY101", "Python数据分析"), ("CK201", "中式烹调"), ("WD102", "网页设计")),
        sql=(
            f"SELECT c.课程代码, c.课程名称 FROM {_E} e JOIN {_C} c ON c.课程代码 = e.课程代码 "
            "GROUP BY c.课程代码, c.课程名称 ORDER BY SUM(e.实收学费) DESC LIMIT 3"
        ),
    ),
    Question(
        "k-08",
        "How many enrollments were made last month?",
        "period",
        numbers=((25,),),
        sql=(
            f"SELECT COUNT(*) FROM {_E} WHERE 报名日期 >= DATE '2026-05-01' "
            "AND 报名日期 < DATE '2026-06-01'"
        ),
    ),
    Question(
        "k-09",
        "本月到目前为止有多少条报名？",
        "period",
        numbers=((12,),),
        sql=(
            f"SELECT COUNT(*) FROM {_E} WHERE 报名日期 >= DATE '2026-06-01' "
            "AND 报名日期 < DATE '2026-07-01'"
        ),
    ),
    Question(
        "k-10",
        "How many enrollments were paid at the early-bird price?",
        "count",
        numbers=((35,),),
        sql=f"SELECT COUNT(*) FROM {_E} WHERE 备注 = '早鸟九折'",
    ),
    Question(
        "k-11",
        "2026年3月报名的学员中，有多少人已经结业？",
        "period",
        numbers=((22,),),
        sql=(
            f"SELECT COUNT(*) FROM {_E} WHERE 状态 = '已结业' AND 报名日期 >= "
            "DATE '2026-03-01' AND 报名日期 < DATE '2026-04-01'"
        ),
    ),
    Question(
        "k-12",
        "What is the average tuition actually paid for course PY101?",
        "average",
        numbers=((3700,),),
        sql=f"SELECT AVG(实收学费) FROM {_E} WHERE 课程代码 = 'PY101'",
    ),
    Question(
        "k-13",
        "吴静老师主讲的课程一共有多少条报名？",
        "join",
        numbers=((31,),),
        sql=(
            f"SELECT COUNT(*) FROM {_E} e JOIN {_C} c ON c.课程代码 = e.课程代码 "
            "WHERE c.主讲讲师 = '吴静'"
        ),
    ),
    Question(
        "k-14",
        "How many distinct students have enrolled in at least one course?",
        "count",
        numbers=((94,),),
        sql=f"SELECT COUNT(DISTINCT 学员编号) FROM {_E}",
    ),
    Question(
        "k-15",
        "考勤记录中缺勤（absent）一共有多少次？",
        "count",
        numbers=((66,),),
        sql=f"SELECT COUNT(*) FROM {_A} WHERE status = 'absent'",
    ),
    Question(
        "k-16",
        "What is the overall attendance rate, as the student handbook defines it?",
        "defined",
        numbers=((80.25, 0.8025),),
        sql=f"SELECT {_ATTENDED} FROM {_A}",
        source=f"{_HANDBOOK}: 第二条 出勤率 = 出勤次数 ÷ 应到次数；请假不计为出勤",
        passage=_RATE,
    ),
    Question(
        "k-17",
        "按学员手册的定义，CK201 课程的出勤率是多少？",
        "defined",
        numbers=((87.21, 0.8721),),
        sql=f"SELECT {_ATTENDED} FROM {_A} WHERE course = 'CK201'",
        source=f"{_HANDBOOK}: 第二条 出勤率 = 出勤次数 ÷ 应到次数；请假不计为出勤",
        passage=_RATE,
    ),
    Question(
        "k-18",
        "How many class hours were missed as absent in May 2026?",
        "period",
        numbers=((44,),),
        sql=(
            f"SELECT SUM(hours) FROM {_A} WHERE status = 'absent' AND date >= "
            "DATE '2026-05-01' AND date < DATE '2026-06-01'"
        ),
    ),
    Question(
        "k-19",
        "哪门课程的请假（excused）次数最多？",
        "topk",
        facts=(("PY101", "Python数据分析"),),
        sql=(
            f"SELECT course FROM {_A} WHERE status = 'excused' GROUP BY course "
            "ORDER BY COUNT(*) DESC LIMIT 1"
        ),
    ),
    Question(
        "k-20",
        "Which course category has the highest average final score among graduated students?",
        "join",
        facts=(("电工", "Electric"),),
        sql=(
            f"SELECT c.类别 FROM {_E} e JOIN {_C} c ON c.课程代码 = e.课程代码 WHERE "
            "e.状态 = '已结业' GROUP BY c.类别 ORDER BY AVG(e.结业成绩) DESC LIMIT 1"
        ),
    ),
    Question(
        "k-21",
        "结业成绩的最高分是多少？",
        "topk",
        numbers=((98,),),
        sql=f"SELECT MAX(结业成绩) FROM {_E}",
    ),
    Question(
        "k-22",
        "What is the total number of course hours (课时) of the courses in the 烹饪 category?",
        "sum",
        numbers=((140,),),
        sql=f"SELECT SUM(课时) FROM {_C} WHERE 类别 = '烹饪'",
    ),
    Question(
        "k-23",
        "课时最多的课程是哪一门？",
        "topk",
        facts=(("CK201", "中式烹调"),),
        sql=f"SELECT 课程代码, 课程名称 FROM {_C} ORDER BY 课时 DESC LIMIT 1",
    ),
    Question(
        "k-24",
        "How many attendance records were logged last month?",
        "period",
        numbers=((130,),),
        sql=(
            f"SELECT COUNT(*) FROM {_A} WHERE date >= DATE '2026-05-01' "
            "AND date < DATE '2026-06-01'"
        ),
    ),
    # the student handbook (Word) and the instructor handbook (PDF): the documents alone
    Question(
        "p-01",
        "开课后多少天内申请退学可以退还部分学费？",
        "clause",
        numbers=((7,),),
        source=f"{_HANDBOOK}: 第七条 开课后7日内申请退学的，退还所缴学费的70%",
        passage=_REFUND,
    ),
    Question(
        "p-02",
        "What share of the tuition is refunded when a student withdraws within 7 days after "
        "the course starts?",
        "clause",
        numbers=((70, 0.7),),
        source=f"{_HANDBOOK}: 第七条 开课后7日内申请退学的，退还所缴学费的70%",
        passage=_REFUND,
    ),
    Question(
        "p-03",
        "补考费是多少元？",
        "prose_number",
        numbers=((200,),),
        source=f"{_HANDBOOK}: 第四条 补考费为每人200元",
        passage="补考费为每人200元",
    ),
    Question(
        "p-04",
        "Within how many days after graduation can a student apply for the government "
        "training subsidy?",
        "clause",
        numbers=((90,),),
        source=f"{_HANDBOOK}: 第八条 可在结业之日起90天内申请政府职业技能培训补贴",
        passage="可在结业之日起90天内申请政府职业技能培训补贴",
    ),
    Question(
        "p-05",
        "每个教学班最多可以有多少名学员？",
        "prose_number",
        numbers=((30,),),
        source=f"{_HANDBOOK}: 第六条 每个教学班的班额不超过30人",
        passage="每个教学班的班额不超过30人",
    ),
    Question(
        "p-06",
        "How much subsidy per person does the student handbook set for 信息技术 (IT) courses?",
        "doc_table",
        numbers=((1500,),),
        source=f"{_HANDBOOK}: the subsidy table, 信息技术 | 1500",
        passage=_TABLE,
    ),
    Question(
        "p-07",
        "结业证书遗失后补办需要几个工作日？",
        "prose_number",
        numbers=((5,),),
        source=f"{_HANDBOOK}: 第九条 补办费50元，5个工作日内办结",
        passage="5个工作日内办结",
    ),
    Question(
        "p-08",
        "Can a student with an attendance rate of 75% and a final score of 85 get the "
        "completion certificate?",
        "yes_no",
        facts=(_NO,),
        source=f"{_HANDBOOK}: 第三条 出勤率不低于80%且结业考核成绩不低于60分",
        passage="学员出勤率不低于80%且结业考核成绩不低于60分的，方可获得结业证书",
    ),
    Question(
        "p-09",
        "早鸟优惠需要在开课前多少天以上报名？",
        "clause",
        numbers=((30,),),
        source=f"{_HANDBOOK}: 第五条 在开课前30天以上报名的学员享受早鸟优惠",
        passage=_EARLY,
    ),
    Question(
        "p-10",
        "How much is a lead instructor paid per teaching hour?",
        "prose_number",
        numbers=((180,),),
        source=f"{_PDF}: 1. Lead instructors are paid 180 yuan per teaching hour",
        passage=_LEAD,
    ),
    Question(
        "p-11",
        "助教每课时的课酬是多少元？",
        "prose_number",
        numbers=((120,),),
        source=f"{_PDF}: 1. teaching assistants are paid 120 yuan per teaching hour",
        passage="teaching assistants are paid 120 yuan per teaching hour",
    ),
    Question(
        "p-12",
        "What is the minimum number of enrolled students for a class to open?",
        "clause",
        numbers=((8,),),
        source=f"{_PDF}: 3. A class opens only when at least 8 students have enrolled",
        passage="A class opens only when at least 8 students have enrolled",
    ),
    Question(
        "p-13",
        "讲师不能上课时，至少要提前多少小时申请代课？",
        "clause",
        numbers=((48,),),
        source=f"{_PDF}: 4. request a substitute at least 48 hours in advance",
        passage="request a substitute at least 48 hours in advance",
    ),
    Question(
        "p-14",
        "Within how many working days after the end of a month is the teaching pay paid?",
        "clause",
        numbers=((10,),),
        source=f"{_PDF}: 2. paid within 10 working days after the end of that month",
        passage="paid within 10 working days after the end of that month",
    ),
    Question(
        "p-15",
        "电工类课程的结业学员每人可申请多少元补贴？",
        "doc_table",
        numbers=((800,),),
        source=f"{_HANDBOOK}: the subsidy table, 电工 | 800",
        passage=_TABLE,
    ),
    Question(
        "p-16",
        "Does a student who withdraws 10 days after the course starts get any refund?",
        "yes_no",
        facts=(_NO,),
        source=f"{_HANDBOOK}: 第七条 开课超过7日申请退学的，不予退费",
        passage="开课超过7日申请退学的，不予退费",
    ),
    Question(
        "p-17",
        "烹饪和电工课程的讲师每隔多少个月要重新参加安全培训？",
        "clause",
        numbers=((12,),),
        source=f"{_PDF}: 6. must renew their safety training every 12 months",
        passage="must renew their safety training every 12 months",
    ),
    # a figure from the data and the rule that applies to it
    Question(
        "x-01",
        "结业成绩不低于60分的电工类已结业学员有多少人？按学员手册，每人可申请多少元补贴？",
        "mixed",
        numbers=((5,), (800,)),
        sql=(
            f"SELECT COUNT(*) FROM {_E} e JOIN {_C} c ON c.课程代码 = e.课程代码 WHERE "
            "c.类别 = '电工' AND e.状态 = '已结业' AND e.结业成绩 >= 60"
        ),
        source=f"{_HANDBOOK}: the subsidy table, 电工 | 800",
        passage=_TABLE,
    ),
    Question(
        "x-02",
        "How many enrollments were paid at the early-bird price, and at least how many days "
        "before the course starts must a student enroll to get it?",
        "mixed",
        numbers=((35,), (30,)),
        sql=f"SELECT COUNT(*) FROM {_E} WHERE 备注 = '早鸟九折'",
        source=f"{_HANDBOOK}: 第五条 在开课前30天以上报名的学员享受早鸟优惠",
        passage=_EARLY,
    ),
    Question(
        "x-03",
        "结业成绩低于60分的已结业学员有多少人？按学员手册，补考费每人多少元？",
        "mixed",
        numbers=((14,), (200,)),
        sql=f"SELECT COUNT(*) FROM {_E} WHERE 状态 = '已结业' AND 结业成绩 < 60",
        source=f"{_HANDBOOK}: 第四条 补考费为每人200元",
        passage="补考费为每人200元",
    ),
    Question(
        "x-04",
        "At the instructor handbook's lead-instructor rate, what is the teaching pay for all "
        "the class hours (课时) of course PY101?",
        "mixed",
        numbers=((11520,),),
        sql=f"SELECT 课时 * 180 FROM {_C} WHERE 课程代码 = 'PY101'",
        source=f"{_PDF}: 1. Lead instructors are paid 180 yuan per teaching hour",
        passage=_LEAD,
    ),
    Question(
        "x-05",
        "退学的报名有多少条？按学员手册，开课后7日内退学的可退还所缴学费的百分之几？",
        "mixed",
        numbers=((25,), (70, 0.7)),
        sql=f"SELECT COUNT(*) FROM {_E} WHERE 状态 = '退学'",
        source=f"{_HANDBOOK}: 第七条 开课后7日内申请退学的，退还所缴学费的70%",
        passage=_REFUND,
    ),
    # what no file says
    Question("z-01", "学校2025年一共招了多少名学员？", "unanswerable"),
    Question("z-02", "What is the average monthly salary of the instructors?", "unanswerable"),
    Question("z-03", "学员结业后的就业率是多少？", "unanswerable"),
    Question("z-04", "How many students live in the school dormitory?", "unanswerable"),
    Question("z-05", "赵磊老师的联系电话是多少？", "unanswerable"),
    Question("z-06", "What was the school's rent expense in April 2026?", "unanswerable"),
)
