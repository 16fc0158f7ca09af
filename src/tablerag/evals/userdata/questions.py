"""The user-data evaluation's questions, with answers checked by hand.

Every data question carries its gold SQL over the ingested workspace and its expected values;
both were checked by running ``tablerag sql`` on a workspace ingested from
:func:`tablerag.evals.userdata.files.write_userdata` and by recomputing from
:mod:`tablerag.evals.userdata.data` (``tests/evals/test_userdata.py`` repeats both). A document
question names its source passage. Table names are those ingest gives today (``tablerag
tables``); the gold SQL is for checking, scoring reads only ``numbers`` and ``facts``.

Kinds: ``totals`` (a 合计 row would double a sum), ``merged_header``, ``second_sheet``,
``pdf_table`` (a table over three PDF pages), ``gbk_csv``, ``metric`` (客单价 as the metric
document defines it), ``thousands``, ``ambiguous_date``, ``policy`` (only in the Word policy),
``pdf_text``, ``faq``, ``two_part`` (a figure and a policy), ``unanswerable``.
"""

from __future__ import annotations

from dataclasses import dataclass

from tablerag.answer import detect_language


@dataclass(frozen=True)
class Question:
    """One question and how its answer is judged.

    Attributes:
        qid: stable id (``ud-01``...).
        question: as a user asks it.
        kind: the hard case it tests (module docstring).
        numbers: each group is one figure the answer must state; any value of the group counts.
        facts: each group is one fact the answer must state; any spelling of the group counts.
        sql: the gold SQL over the ingested workspace (data questions), else "".
        source: the file and passage that hold a document question's answer, else "".
        passage: a phrase of the passage that answers a document question, as the ingested
            chunk holds it (whitespace aside), else "": a run checks whether the chunks
            retrieved for the question hold it (:mod:`tablerag.evals.userdata.passages`).
    """

    qid: str
    question: str
    kind: str
    numbers: tuple[tuple[float, ...], ...] = ()
    facts: tuple[tuple[str, ...], ...] = ()
    sql: str = ""
    source: str = ""
    passage: str = ""

    @property
    def language(self) -> str:
        """The question's language as the product detects it (``zh`` or ``en``)."""
        return detect_language(self.question)

    @property
    def answerable(self) -> bool:
        """False for the questions whose right answer is that the data cannot say."""
        return self.kind != "unanswerable"


_W = "warranty_report_table_1"
_T = "差旅报销制度_table_1"

QUESTIONS: tuple[Question, ...] = (
    # the workbook: merged two-row header, a 合计 row, a second sheet
    Question(
        "ud-01", "员工的月薪总和是多少？", "totals", ((70000,),), sql="SELECT SUM(月薪) FROM 工资表"
    ),
    Question(
        "ud-02",
        "What is the total performance bonus paid to all employees?",
        "totals",
        ((11500,),),
        sql="SELECT SUM(绩效奖金) FROM 工资表",
    ),
    Question(
        "ud-03", "公司一共有多少名员工？", "totals", ((9,),), sql="SELECT COUNT(*) FROM 工资表"
    ),
    Question(
        "ud-04",
        "研发部员工的平均月薪是多少？",
        "merged_header",
        ((9250,),),
        sql="SELECT AVG(月薪) FROM 工资表 WHERE 部门 = '研发部'",
    ),
    Question(
        "ud-05",
        "Which employee has the highest monthly salary?",
        "merged_header",
        facts=(("李强", "E03"),),
        sql="SELECT 姓名 FROM 工资表 ORDER BY 月薪 DESC LIMIT 1",
    ),
    Question(
        "ud-06",
        "销售部的绩效奖金合计是多少？",
        "merged_header",
        ((6000,),),
        sql="SELECT SUM(绩效奖金) FROM 工资表 WHERE 部门 = '销售部'",
    ),
    Question(
        "ud-07",
        "财务部的负责人是谁？",
        "second_sheet",
        facts=(("黄丽",),),
        sql="SELECT 负责人 FROM 部门 WHERE 部门 = '财务部'",
    ),
    Question(
        "ud-08",
        "How many departments have their office in 上海?",
        "second_sheet",
        ((2,),),
        sql="SELECT COUNT(*) FROM 部门 WHERE 办公地点 = '上海'",
    ),
    Question(
        "ud-09",
        "办公地点在北京的部门，员工月薪总和是多少？",
        "second_sheet",
        ((18000,),),
        sql="SELECT SUM(e.月薪) FROM 工资表 e JOIN 部门 d ON e.部门 = d.部门 "
        "WHERE d.办公地点 = '北京'",
    ),
    # the PDF report: an 80-row table over three pages, and narrative text
    Question(
        "ud-10",
        "How many warranty claims were filed in total?",
        "pdf_table",
        ((80,),),
        sql=f"SELECT COUNT(*) FROM {_W}",
    ),
    Question(
        "ud-11",
        "What is the total amount of all warranty claims?",
        "pdf_table",
        ((423647.69,),),
        sql=f"SELECT SUM(amount) FROM {_W}",
    ),
    Question(
        "ud-12",
        "保修索赔中，产品 Air Purifier 有多少笔？",
        "pdf_table",
        ((24,),),
        sql=f"SELECT COUNT(*) FROM {_W} WHERE product = 'Air Purifier'",
    ),
    Question(
        "ud-13",
        "How many warranty claims were filed in March 2026?",
        "pdf_table",
        ((26,),),
        sql=f"SELECT COUNT(*) FROM {_W} WHERE filed >= DATE '2026-03-01' "
        "AND filed < DATE '2026-04-01'",
    ),
    Question(
        "ud-14",
        "How many warranty claims have an amount above 5,000?",
        "pdf_table",
        ((42,),),
        sql=f"SELECT COUNT(*) FROM {_W} WHERE amount > 5000",
    ),
    Question(
        "ud-15",
        "哪个地区的保修索赔数量最多？",
        "pdf_table",
        facts=(("North",),),
        sql=f"SELECT region FROM {_W} GROUP BY region ORDER BY COUNT(*) DESC LIMIT 1",
    ),
    Question(
        "ud-16",
        "Which warranty claim has the largest amount?",
        "pdf_table",
        facts=(("WC-051",),),
        sql=f"SELECT claim_id FROM {_W} ORDER BY amount DESC LIMIT 1",
    ),
    Question(
        "ud-17",
        "How many warranty claims were filed in total, and what is their total amount?",
        "pdf_table",
        ((80,), (423647.69,)),
        sql=f"SELECT COUNT(*), SUM(amount) FROM {_W}",
    ),
    Question(
        "ud-18",
        "Within how many months of purchase are warranty claims accepted?",
        "pdf_text",
        ((24,),),
        source="warranty_report.pdf: Claims are accepted within 24 months of the purchase date.",
    ),
    Question(
        "ud-19",
        "What was the average processing time of a warranty claim?",
        "pdf_text",
        ((6.5,),),
        source="warranty_report.pdf: Claims were processed in 6.5 days on average.",
    ),
    Question(
        "ud-20",
        "保修索赔团队的负责人是谁？",
        "pdf_text",
        facts=(("Maria Lopez",),),
        source="warranty_report.pdf: The claims team is led by Maria Lopez, ...",
    ),
    # the GBK orders CSV and the metric document
    Question(
        "ud-21",
        "订单明细里一共有多少笔已支付订单？",
        "gbk_csv",
        ((38,),),
        sql="SELECT COUNT(*) FROM 订单明细 WHERE 订单状态 = '已支付'",
    ),
    Question(
        "ud-22",
        "哪个渠道的客单价最高？",
        "metric",
        facts=(("经销商",),),
        sql="SELECT 渠道 FROM 订单明细 WHERE 订单状态 = '已支付' GROUP BY 渠道 "
        "ORDER BY SUM(订单金额) / COUNT(*) DESC LIMIT 1",
        source="指标口径.md: 客单价 = 已支付订单的订单金额合计 ÷ 已支付订单数。",
    ),
    Question(
        "ud-23",
        "What is the average order value (客单价) of 京东自营?",
        "metric",
        ((459.31, 459.3),),
        sql="SELECT SUM(订单金额) / COUNT(*) FROM 订单明细 WHERE 订单状态 = '已支付' "
        "AND 渠道 = '京东自营'",
        source="指标口径.md: 客单价 = 已支付订单的订单金额合计 ÷ 已支付订单数。",
    ),
    Question(
        "ud-24",
        "订单的退款率是多少？",
        "metric",
        ((10, 0.1),),
        sql="SELECT COUNT(*) FILTER (WHERE 订单状态 = '已退款') / COUNT(*) FROM 订单明细",
        source="指标口径.md: 退款率 = 已退款订单数 ÷ 全部订单数。",
    ),
    Question(
        "ud-25",
        "What is the total amount of paid orders of 天猫旗舰店?",
        "gbk_csv",
        ((9678,),),
        sql="SELECT SUM(订单金额) FROM 订单明细 WHERE 订单状态 = '已支付' AND 渠道 = '天猫旗舰店'",
    ),
    Question(
        "ud-26",
        "2026年2月一共有多少笔订单？",
        "gbk_csv",
        ((15,),),
        sql="SELECT COUNT(*) FROM 订单明细 WHERE 下单日期 >= DATE '2026-02-01' "
        "AND 下单日期 < DATE '2026-03-01'",
    ),
    Question(
        "ud-27",
        "京东自营有多少笔已退款订单？",
        "gbk_csv",
        ((3,),),
        sql="SELECT COUNT(*) FROM 订单明细 WHERE 渠道 = '京东自营' AND 订单状态 = '已退款'",
    ),
    # the payments CSV: MM/DD/YYYY dates and thousands separators
    Question(
        "ud-28",
        "What is the total amount of all payments?",
        "thousands",
        ((440288.89,),),
        sql="SELECT SUM(amount) FROM payments",
    ),
    Question(
        "ud-29",
        "How much was paid in March 2026?",
        "ambiguous_date",
        ((116988.27,),),
        sql="SELECT SUM(amount) FROM payments WHERE paid_on >= DATE '2026-03-01' "
        "AND paid_on < DATE '2026-04-01'",
    ),
    Question(
        "ud-30",
        "How much was paid on 03/05/2026?",
        "ambiguous_date",
        ((12715.48,),),
        sql="SELECT SUM(amount) FROM payments WHERE paid_on = DATE '2026-03-05'",
    ),
    Question(
        "ud-31",
        "2026年5月3日收到的付款总额是多少？",
        "ambiguous_date",
        ((24548.65,),),
        sql="SELECT SUM(amount) FROM payments WHERE paid_on = DATE '2026-05-03'",
    ),
    Question(
        "ud-32",
        "What is the largest single payment amount?",
        "thousands",
        ((24210.89,),),
        sql="SELECT MAX(amount) FROM payments",
    ),
    Question(
        "ud-33",
        "Delta Traders 的付款总额是多少？",
        "thousands",
        ((121251.38,),),
        sql="SELECT SUM(amount) FROM payments WHERE customer = 'Delta Traders'",
    ),
    Question(
        "ud-34",
        "How many payments were received in April 2026?",
        "ambiguous_date",
        ((4,),),
        sql="SELECT COUNT(*) FROM payments WHERE paid_on >= DATE '2026-04-01' "
        "AND paid_on < DATE '2026-05-01'",
    ),
    # the Word policy: clauses and the allowance table
    Question(
        "ud-35",
        "一线城市出差每晚住宿最多能报销多少？",
        "policy",
        ((600,),),
        sql=f"SELECT 住宿标准_元_晚 FROM {_T} WHERE 城市等级 = '一线城市'",
        source="差旅报销制度.docx, 第五条 table: 一线城市 | 600 | 100",
    ),
    Question(
        "ud-36",
        "What is the daily meal allowance for business trips to second-tier cities?",
        "policy",
        ((80,),),
        sql=f"SELECT 伙食补助_元_天 FROM {_T} WHERE 城市等级 = '二线城市'",
        source="差旅报销制度.docx, 第五条 table: 二线城市 | 450 | 80",
    ),
    Question(
        "ud-37",
        "出差结束后多少个工作日内必须提交报销单？",
        "policy",
        facts=(("十五", "15"),),
        source="差旅报销制度.docx: 第六条 员工应在出差结束后十五个工作日内提交报销单",
    ),
    Question(
        "ud-38",
        "单次报销金额超过多少元需要总经理审批？",
        "policy",
        ((5000,),),
        source="差旅报销制度.docx: 第七条 单次报销金额超过5000元的，须经总经理审批。",
    ),
    Question(
        "ud-39",
        "Which class of air travel does the travel policy allow?",
        "policy",
        facts=(("economy", "经济舱"),),
        source="差旅报销制度.docx: 第四条 出差人员乘坐飞机一律为经济舱",
    ),
    Question(
        "ud-40",
        "差旅报销制度由哪个部门负责解释？",
        "policy",
        facts=(("财务部",),),
        source="差旅报销制度.docx: 第八条 本制度由财务部负责解释",
    ),
    # the FAQ
    Question(
        "ud-41",
        "商品签收后几天内可以申请无理由退货？",
        "faq",
        ((7,),),
        source="客服FAQ.md: 自签收之日起7天内可以申请无理由退货",
    ),
    Question(
        "ud-42",
        "What are the customer service hotline hours?",
        "faq",
        facts=(("21:00", "9 pm", "9pm", "21点"),),
        source="客服FAQ.md: open from 9:00 to 21:00, seven days a week",
    ),
    Question(
        "ud-43",
        "How many working days does a refund take after the returned goods pass inspection?",
        "faq",
        ((3,),),
        source="客服FAQ.md: 退款在3个工作日内原路退回",
    ),
    # two-part: a figure and a policy
    Question(
        "ud-44",
        "员工的月薪总和是多少？一线城市出差每晚住宿标准是多少？",
        "two_part",
        ((70000,), (600,)),
        sql="SELECT SUM(月薪) FROM 工资表",
        source="差旅报销制度.docx, 第五条 table: 一线城市 | 600",
    ),
    Question(
        "ud-45",
        "How many warranty claims were filed, and within how many months of purchase are "
        "claims accepted?",
        "two_part",
        ((80,), (24,)),
        sql=f"SELECT COUNT(*) FROM {_W}",
        source="warranty_report.pdf: Claims are accepted within 24 months of the purchase date.",
    ),
    Question(
        "ud-46",
        "哪个渠道的客单价最高？按照指标口径，客单价只统计哪种状态的订单？",
        "two_part",
        facts=(("经销商",), ("已支付",)),
        sql="SELECT 渠道 FROM 订单明细 WHERE 订单状态 = '已支付' GROUP BY 渠道 "
        "ORDER BY SUM(订单金额) / COUNT(*) DESC LIMIT 1",
        source="指标口径.md: 客单价 = 已支付订单的订单金额合计 ÷ 已支付订单数。",
    ),
    # what the files cannot answer
    Question("ud-47", "公司2025年的员工流失率是多少？", "unanswerable"),
    Question("ud-48", "What was the total warranty claim amount in 2024?", "unanswerable"),
    Question("ud-49", "员工的平均年龄是多少？", "unanswerable"),
)
