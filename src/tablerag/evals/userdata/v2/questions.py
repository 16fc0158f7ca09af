"""The second user-data set's questions (``--set v2``): written as templates before any answer
was looked at; every expected value computed by :mod:`.truth` from the generator's records.

Kinds: ``count``, ``sum``, ``average``, ``defined`` (a metric a document defines: 爽约率,
次均费用, 个人自付, the on-time rate), ``topk``, ``period`` (a month, or 上个月 / this month
against the pinned :data:`~tablerag.evals.userdata.v2.data.TODAY`), ``join`` (across sheets or
files), ``clause`` (a rule a clause states), ``prose_number`` (a number stated in prose),
``doc_table`` (a number in a document's table), ``mixed`` (a figure from the data and the rule
that applies), ``unanswerable``. The dev / held-out split is :mod:`..split`'s: read no held-out
question while changing code.

A rate's figure group holds the percentage and the fraction. The truth is plain Python
(``tests/evals/test_userdata_v2.py`` recomputes each one). A data question's gold SQL, over the
tables ingest gives today (``tablerag tables``), feeds the ``tablerag-oracle`` method; the tests
check it gives the truth on a freshly ingested workspace (for a ``mixed`` question: its first
figure). Scoring reads only ``numbers`` and ``facts``.
"""

from __future__ import annotations

from tablerag.evals.userdata.questions import Question

QUESTIONS: tuple[Question, ...] = (
    Question(
        "c-01",
        "预约记录表里一共有多少条预约？",
        "count",
        numbers=((120,),),
        sql="SELECT COUNT(*) FROM 预约记录",
    ),
    Question(
        "c-02",
        "How many appointments were cancelled?",
        "count",
        numbers=((19,),),
        sql="SELECT COUNT(*) FROM 预约记录 WHERE 状态 = '已取消'",
    ),
    Question(
        "c-03",
        "口腔科一共有多少人次已就诊？",
        "join",
        numbers=((23,),),
        sql=(
            "SELECT COUNT(*) FROM 预约记录 a JOIN 医生 d ON d.姓名 = a.医生 WHERE "
            "d.科室 = '口腔科' AND a.状态 = '已就诊'"
        ),
    ),
    Question(
        "c-04",
        "What is the clinic's no-show rate (爽约率) as its rules define it?",
        "defined",
        numbers=(
            (
                19.8,
                0.198,
            ),
        ),
        sql=(
            "SELECT 100.0 * COUNT(*) FILTER (WHERE 状态 = '爽约') / COUNT(*) FILTER "
            "(WHERE 状态 IN ('已就诊', '爽约')) FROM 预约记录"
        ),
        source=(
            "诊所预约与收费管理办法.md: 第二条 爽约率 = 爽约次数 ÷ "
            "有效预约次数（第一条：已就诊或爽约）"
        ),
    ),
    Question(
        "c-05",
        "上个月的爽约率是多少？",
        "period",
        numbers=(
            (
                23.08,
                0.2308,
            ),
        ),
        sql=(
            "SELECT 100.0 * COUNT(*) FILTER (WHERE 状态 = '爽约') / COUNT(*) FILTER "
            "(WHERE 状态 IN ('已就诊', '爽约')) FROM 预约记录 WHERE 预约日期 >= DATE "
            "'2026-03-01' AND 预约日期 < DATE '2026-04-01'"
        ),
        source="诊所预约与收费管理办法.md: 第二条",
    ),
    Question(
        "c-06",
        "What was the total amount invoiced for visits in March 2026?",
        "join",
        numbers=((13895.95,),),
        sql=(
            "SELECT SUM(f.金额) FROM 收费明细 f JOIN 预约记录 a ON a.预约号 = "
            "f.预约号 WHERE a.预约日期 >= DATE '2026-03-01' AND a.预约日期 < DATE "
            "'2026-04-01'"
        ),
    ),
    Question(
        "c-07",
        "上个月就诊的医保支付合计是多少元？",
        "period",
        numbers=((3718.42,),),
        sql=(
            "SELECT SUM(f.医保支付) FROM 收费明细 f JOIN 预约记录 a ON a.预约号 = "
            "f.预约号 WHERE a.预约日期 >= DATE '2026-03-01' AND a.预约日期 < DATE "
            "'2026-04-01'"
        ),
    ),
    Question(
        "c-08",
        ("What is the average cost per visit (次均费用) as defined in the clinic's rules?"),
        "defined",
        numbers=((829.78,),),
        sql=(
            "SELECT (SELECT SUM(金额) FROM 收费明细) / (SELECT COUNT(*) FROM 预约记录"
            " "
            "WHERE 状态 = '已就诊')"
        ),
        source="诊所预约与收费管理办法.md: 第三条 次均费用 = 收费金额合计 ÷ 已就诊人次",
    ),
    Question(
        "c-09",
        "哪位医生的已就诊人次最多？",
        "topk",
        facts=(("陈立",),),
        sql=(
            "SELECT 医生 FROM 预约记录 WHERE 状态 = '已就诊' GROUP BY 医生 ORDER BY "
            "COUNT(*) DESC LIMIT 1"
        ),
    ),
    Question(
        "c-10",
        "Which three doctors have the highest total invoiced amounts?",
        "topk",
        facts=(
            ("周海",),
            ("郑敏",),
            ("陈立",),
        ),
        sql=(
            "SELECT a.医生 FROM 收费明细 f JOIN 预约记录 a ON a.预约号 = f.预约号 "
            "GROUP BY a.医生 ORDER BY SUM(f.金额) DESC LIMIT 3"
        ),
    ),
    Question(
        "c-11",
        "口腔科的个人自付金额合计是多少元？",
        "defined",
        numbers=((40896.48,),),
        sql=(
            "SELECT SUM(f.金额 - f.医保支付) FROM 收费明细 f JOIN 预约记录 a ON "
            "a.预约号 = f.预约号 JOIN 医生 d ON d.姓名 = a.医生 WHERE d.科室 = "
            "'口腔科'"
        ),
        source="诊所预约与收费管理办法.md: 第四条 个人自付 = 收费金额 − 医保支付",
    ),
    Question(
        "c-12",
        "How many invoices are above 2,000 yuan?",
        "count",
        numbers=((8,),),
        sql="SELECT COUNT(*) FROM 收费明细 WHERE 金额 > 2000",
    ),
    Question(
        "c-13",
        "2026年2月一共有多少条预约？",
        "period",
        numbers=((37,),),
        sql=(
            "SELECT COUNT(*) FROM 预约记录 WHERE 预约日期 >= DATE '2026-02-01' AND "
            "预约日期 < DATE '2026-03-01'"
        ),
    ),
    Question(
        "c-14",
        "How many different patients had at least one completed visit?",
        "count",
        numbers=((39,),),
        sql="SELECT COUNT(DISTINCT 患者编号) FROM 预约记录 WHERE 状态 = '已就诊'",
    ),
    Question(
        "c-15",
        "职称为副主任医师或主任医师的医生有几位？",
        "count",
        numbers=((2,),),
        sql="SELECT COUNT(*) FROM 医生 WHERE 职称 IN ('副主任医师', '主任医师')",
    ),
    Question(
        "c-16",
        "取消预约最晚要在就诊前多少小时办理？",
        "clause",
        numbers=((24,),),
        source="诊所预约与收费管理办法.md: 第六条 须在就诊时间前24小时办理",
    ),
    Question(
        "c-17",
        "Within how many days of the invoice date can a refund be made?",
        "clause",
        numbers=((30,),),
        source="诊所预约与收费管理办法.md: 第十条 退费须在开票之日起30日内",
    ),
    Question(
        "c-18",
        "口腔科的诊疗费用可以用医保报销吗？",
        "clause",
        facts=(
            (
                "不纳入",
                "不能",
                "不可以",
                "不可",
                "不予",
                "自付",
            ),
        ),
        source="诊所预约与收费管理办法.md: 第八条 口腔科诊疗项目不纳入医保报销范围",
    ),
    Question(
        "c-19",
        ("What is the registration fee of a chief physician (主任医师) under the clinic's rules?"),
        "prose_number",
        numbers=((80,),),
        source="诊所预约与收费管理办法.md: 第十一条 挂号费标准：主任医师80元",
    ),
    Question(
        "c-20",
        "儿科每天限号多少个？",
        "prose_number",
        numbers=((40,),),
        source="诊所预约与收费管理办法.md: 第七条 儿科每日限号40个",
    ),
    Question(
        "c-21",
        "金额超过2000元的发票有多少张？按规定这些发票需要由谁签字确认？",
        "mixed",
        numbers=((8,),),
        facts=(("科室主任",),),
        sql="SELECT COUNT(*) FROM 收费明细 WHERE 金额 > 2000",
        source="诊所预约与收费管理办法.md: 第九条 须由科室主任签字确认",
    ),
    Question(
        "c-22",
        (
            "How many dental (口腔科) visits were completed, and does medical "
            "insurance cover dental treatment?"
        ),
        "mixed",
        numbers=((23,),),
        facts=(
            (
                "不纳入",
                "not covered",
                "not included",
                "not reimbursed",
                "does not cover",
                "doesn't cover",
                "self-pa",
                "out of pocket",
                "自付",
            ),
        ),
        sql=(
            "SELECT COUNT(*) FROM 预约记录 a JOIN 医生 d ON d.姓名 = a.医生 WHERE "
            "d.科室 = '口腔科' AND a.状态 = '已就诊'"
        ),
        source="诊所预约与收费管理办法.md: 第八条",
    ),
    Question(
        "c-23",
        "How many completed visits has the clinic had so far this month?",
        "period",
        numbers=((17,),),
        sql=(
            "SELECT COUNT(*) FROM 预约记录 WHERE 状态 = '已就诊' AND 预约日期 >= DATE"
            " "
            "'2026-04-01' AND 预约日期 < DATE '2026-05-01'"
        ),
    ),
    Question(
        "l-01",
        "运单明细里一共有多少票运单？",
        "count",
        numbers=((150,),),
        sql="SELECT COUNT(*) FROM 运单明细_2026",
    ),
    Question(
        "l-02",
        "What is the total freight of all shipments, in yuan?",
        "sum",
        numbers=((496735.13,),),
        sql="SELECT SUM(运费_元) FROM 运单明细_2026",
    ),
    Question(
        "l-03",
        "货值超过5万元的运单有多少票？",
        "count",
        numbers=((46,),),
        sql=(
            "SELECT COUNT(*) FROM 运单明细_2026 WHERE CASE WHEN 货值 LIKE '%万' THEN "
            "CAST(REPLACE(货值, '万', '') AS DOUBLE) * 10000 ELSE CAST(REPLACE(货值, "
            "',', '') AS DOUBLE) END > 50000"
        ),
    ),
    Question(
        "l-04",
        "What is the total declared value of shipments to 成都?",
        "sum",
        numbers=((1541450,),),
        sql=(
            "SELECT SUM(CASE WHEN 货值 LIKE '%万' THEN CAST(REPLACE(货值, '万', '') "
            "AS DOUBLE) * 10000 ELSE CAST(REPLACE(货值, ',', '') AS DOUBLE) END) FROM"
            " "
            "运单明细_2026 WHERE 目的城市 = '成都'"
        ),
    ),
    Question(
        "l-05",
        "加急运单的平均运费是多少元？",
        "average",
        numbers=((4796.5,),),
        sql="SELECT AVG(运费_元) FROM 运单明细_2026 WHERE 服务类型 = '加急'",
    ),
    Question(
        "l-06",
        (
            "What was the on-time rate of Express (加急) shipments, as the terms of "
            "service define it?"
        ),
        "defined",
        numbers=(
            (
                65.71,
                0.6571,
            ),
        ),
        sql=(
            "SELECT 100.0 * COUNT(*) FILTER (WHERE 签收日期 - 发货日期 <= 2) / "
            "COUNT(*) FROM 运单明细_2026 WHERE 服务类型 = '加急' AND 状态 = '已签收'"
        ),
        source="Service_Terms_2026.docx: clause 1 and the table (Express: 2 days)",
    ),
    Question(
        "l-07",
        "按服务条款的定义，标准服务的准时率是多少？",
        "defined",
        numbers=(
            (
                80.77,
                0.8077,
            ),
        ),
        sql=(
            "SELECT 100.0 * COUNT(*) FILTER (WHERE 签收日期 - 发货日期 <= 5) / "
            "COUNT(*) FROM 运单明细_2026 WHERE 服务类型 = '标准' AND 状态 = '已签收'"
        ),
        source="Service_Terms_2026.docx: clause 1 and the table (Standard: 5 days)",
    ),
    Question(
        "l-08",
        "Which customer sent the most shipments?",
        "topk",
        facts=(("华东电子",),),
        sql=("SELECT 客户 FROM 运单明细_2026 GROUP BY 客户 ORDER BY COUNT(*) DESC LIMIT 1"),
    ),
    Question(
        "l-09",
        "运费合计最高的前三个客户是哪几个？",
        "topk",
        facts=(
            ("华东电子",),
            ("蜀香食品",),
            ("楚天医药",),
        ),
        sql=("SELECT 客户 FROM 运单明细_2026 GROUP BY 客户 ORDER BY SUM(运费_元) DESC LIMIT 3"),
    ),
    Question(
        "l-10",
        "How many shipments were sent last month?",
        "period",
        numbers=((47,),),
        sql=(
            "SELECT COUNT(*) FROM 运单明细_2026 WHERE 发货日期 >= DATE '2026-03-01' "
            "AND 发货日期 < DATE '2026-04-01'"
        ),
    ),
    Question(
        "l-11",
        "本月发出的运单中，还有多少票在运输中？",
        "period",
        numbers=((4,),),
        sql=(
            "SELECT COUNT(*) FROM 运单明细_2026 WHERE 状态 = '运输中' AND 发货日期 >="
            " "
            "DATE '2026-04-01' AND 发货日期 < DATE '2026-05-01'"
        ),
    ),
    Question(
        "l-12",
        "What is the total freight of customers in the Electronics industry?",
        "join",
        numbers=((214861.3,),),
        sql=(
            "SELECT SUM(s.运费_元) FROM 运单明细_2026 s JOIN customers c ON "
            "c.customer = s.客户 WHERE c.industry = 'Electronics'"
        ),
    ),
    Question(
        "l-13",
        "Gold 等级客户的运单总重量是多少公斤？",
        "join",
        numbers=((173922.5,),),
        sql=(
            "SELECT SUM(s.重量_kg) FROM 运单明细_2026 s JOIN customers c ON "
            "c.customer = s.客户 WHERE c.tier = 'Gold'"
        ),
    ),
    Question(
        "l-14",
        "How many shipments left 广州 in February 2026?",
        "period",
        numbers=((8,),),
        sql=(
            "SELECT COUNT(*) FROM 运单明细_2026 WHERE 始发城市 = '广州' AND 发货日期 "
            ">= DATE '2026-02-01' AND 发货日期 < DATE '2026-03-01'"
        ),
    ),
    Question(
        "l-15",
        "哪个目的城市收到的运单最多？",
        "topk",
        facts=(("成都",),),
        sql=("SELECT 目的城市 FROM 运单明细_2026 GROUP BY 目的城市 ORDER BY COUNT(*) DESC LIMIT 1"),
    ),
    Question(
        "l-16",
        "What is the weight of the heaviest single shipment, in kg?",
        "topk",
        numbers=((3185,),),
        sql="SELECT MAX(重量_kg) FROM 运单明细_2026",
    ),
    Question(
        "l-17",
        "How many days of delivery does the Express service promise?",
        "doc_table",
        numbers=((2,),),
        sql=(
            "SELECT promised_delivery_days FROM service_terms_2026_table_1 WHERE "
            "service LIKE 'Express%'"
        ),
        source="Service_Terms_2026.docx: table, Express (加急) | 2",
    ),
    Question(
        "l-18",
        "延误赔偿最高不超过运费的百分之多少？",
        "clause",
        numbers=(
            (
                50,
                0.5,
            ),
        ),
        source="Service_Terms_2026.docx: 3. capped at 50% of the freight",
    ),
    Question(
        "l-19",
        "Within how many days of delivery must a claim for damaged goods be filed?",
        "clause",
        numbers=((7,),),
        source="Service_Terms_2026.docx: 4. within 7 days of delivery",
    ),
    Question(
        "l-20",
        "货值超过多少元的货物必须由客户投保？",
        "prose_number",
        numbers=((50000,),),
        source=("Service_Terms_2026.docx: 5. declared value above 50,000 yuan must be insured"),
    ),
    Question(
        "l-21",
        "Which department interprets the terms of service?",
        "clause",
        facts=(
            (
                "Operations Department",
                "运营部",
                "Operations",
            ),
        ),
        source="Service_Terms_2026.docx: 6. interpreted by the Operations Department",
    ),
    Question(
        "l-22",
        ("加急运单中有多少票晚于承诺时效签收？按服务条款，每晚一天赔偿运费的百分之几？"),
        "mixed",
        numbers=(
            (12,),
            (
                10,
                0.1,
            ),
        ),
        sql=(
            "SELECT COUNT(*) FROM 运单明细_2026 WHERE 服务类型 = '加急' AND 状态 = "
            "'已签收' AND 签收日期 - 发货日期 > 2"
        ),
        source=("Service_Terms_2026.docx: table, Express: 2 days, 10% of the freight per day late"),
    ),
    Question(
        "l-23",
        (
            "How many shipments have a declared value above 50,000 yuan, and what do "
            "the terms require for such goods?"
        ),
        "mixed",
        numbers=((46,),),
        facts=(
            (
                "insur",
                "投保",
                "保险",
            ),
        ),
        sql=(
            "SELECT COUNT(*) FROM 运单明细_2026 WHERE CASE WHEN 货值 LIKE '%万' THEN "
            "CAST(REPLACE(货值, '万', '') AS DOUBLE) * 10000 ELSE CAST(REPLACE(货值, "
            "',', '') AS DOUBLE) END > 50000"
        ),
        source="Service_Terms_2026.docx: 5. must be insured by the customer",
    ),
    Question(
        "l-24",
        "退回的运单运费合计是多少元？",
        "sum",
        numbers=((27358.35,),),
        sql="SELECT SUM(运费_元) FROM 运单明细_2026 WHERE 状态 = '退回'",
    ),
    Question("u-01", "诊所2025年的总收入是多少？", "unanswerable"),
    Question("u-02", "What is the average waiting time of patients at the clinic?", "unanswerable"),
    Question("u-03", "每位快递员每天平均派送多少票？", "unanswerable"),
    Question(
        "u-04", "What was the fuel cost of the Express shipments in March 2026?", "unanswerable"
    ),
    Question("u-05", "陈立医生的手机号码是多少？", "unanswerable"),
    Question("u-06", "What is the customer satisfaction score of 华东电子?", "unanswerable"),
)
