"""The shop set's questions (``--set shop``): written as templates before any answer was looked
at; every expected value computed by :mod:`.truth` from the generator's records, and each data
question's gold SQL over the database's own tables (portable between PostgreSQL and DuckDB)
checked against it by the tests.

Kinds: ``metric`` (GMV, 销售额, 毛利, 客单价, 退货率 as the definitions say, 分 → 元),
``breakdown`` (a metric per category, channel or store), ``period`` (上个月, last quarter, year
to date against the pinned :data:`~tablerag.evals.userdata.shop.data.TODAY`), ``count``,
``topk``, ``definition`` (answered by the definition documents), ``unanswerable`` (including
the phone, a column the reader role is not granted). The dev / held-out split is
:mod:`..split`'s: read no held-out question while changing code.
"""

from __future__ import annotations

from tablerag.evals.userdata.questions import Question

QUESTIONS: tuple[Question, ...] = (
    Question(
        "s-01",
        "2025年的GMV是多少元？",
        "metric",
        numbers=((1206432,),),
        sql=(
            "SELECT SUM(i.qty * i.unit_price) / 100.0 FROM orders o JOIN order_items "
            "i ON i.order_id = o.order_id WHERE o.status IN ('PAID', 'REFUND') AND "
            "o.order_time >= TIMESTAMP '2025-01-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2026-01-01 00:00:00'"
        ),
        source="指标定义.md: GMV",
    ),
    Question(
        "s-02",
        "What was GMV in the first half of 2026, in yuan?",
        "metric",
        numbers=((617409,),),
        sql=(
            "SELECT SUM(i.qty * i.unit_price) / 100.0 FROM orders o JOIN order_items "
            "i ON i.order_id = o.order_id WHERE o.status IN ('PAID', 'REFUND') AND "
            "o.order_time >= TIMESTAMP '2026-01-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2026-07-01 00:00:00'"
        ),
        source="指标定义.md: GMV",
    ),
    Question(
        "s-03",
        "2026年10月各品类的毛利是多少元？",
        "breakdown",
        numbers=(
            (40305.74,),
            (12966.24,),
            (3142.89,),
            (2943.44,),
            (3481.08,),
        ),
        sql=(
            "SELECT c.category_name, SUM(i.qty * i.unit_price - i.discount - i.qty * "
            "p.cost_price) / 100.0 FROM orders o JOIN order_items i ON i.order_id = "
            "o.order_id JOIN products p ON p.product_id = i.product_id JOIN "
            "categories c ON c.category_id = p.category_id WHERE o.status = 'PAID' "
            "AND o.order_time >= TIMESTAMP '2026-10-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2026-11-01 00:00:00' GROUP BY c.category_id, c.category_name "
            "ORDER BY c.category_id"
        ),
        source="指标定义.md: 毛利",
    ),
    Question(
        "s-04",
        "What was the gross profit in October 2026, in yuan?",
        "metric",
        numbers=((62839.39,),),
        sql=(
            "SELECT SUM(i.qty * i.unit_price - i.discount - i.qty * p.cost_price) / "
            "100.0 FROM orders o JOIN order_items i ON i.order_id = o.order_id JOIN "
            "products p ON p.product_id = i.product_id WHERE o.status = 'PAID' AND "
            "o.order_time >= TIMESTAMP '2026-10-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2026-11-01 00:00:00'"
        ),
        source="指标定义.md: 毛利",
    ),
    Question(
        "s-05",
        "2026年各渠道的客单价是多少元？",
        "breakdown",
        numbers=(
            (5129.1,),
            (4393.61,),
            (3313.3,),
        ),
        sql=(
            "SELECT s.channel, SUM(i.qty * i.unit_price - i.discount) / 100.0 / "
            "COUNT(DISTINCT o.order_id) FROM orders o JOIN order_items i ON "
            "i.order_id = o.order_id JOIN stores s ON s.store_id = o.store_id WHERE "
            "o.status = 'PAID' AND o.order_time >= TIMESTAMP '2026-01-01 00:00:00' "
            "AND o.order_time < TIMESTAMP '2027-01-01 00:00:00' GROUP BY s.channel"
        ),
        source="指标定义.md: 客单价",
    ),
    Question(
        "s-06",
        "What was the average order value in 2025, in yuan?",
        "metric",
        numbers=((4206.37,),),
        sql=(
            "SELECT SUM(i.qty * i.unit_price - i.discount) / 100.0 / COUNT(DISTINCT "
            "o.order_id) FROM orders o JOIN order_items i ON i.order_id = o.order_id "
            "WHERE o.status = 'PAID' AND o.order_time >= TIMESTAMP '2025-01-01 "
            "00:00:00' AND o.order_time < TIMESTAMP '2026-01-01 00:00:00'"
        ),
        source="指标定义.md: 客单价",
    ),
    Question(
        "s-07",
        "2025年的退货率是多少？",
        "metric",
        numbers=(
            (
                13.41,
                0.1341,
            ),
        ),
        sql=(
            "SELECT 100.0 * COUNT(*) FILTER (WHERE o.status = 'REFUND') / COUNT(*) "
            "FROM orders o WHERE o.status IN ('PAID', 'REFUND') AND o.order_time >= "
            "TIMESTAMP '2025-01-01 00:00:00' AND o.order_time < TIMESTAMP '2026-01-01"
            " "
            "00:00:00'"
        ),
        source="指标定义.md: 退货率",
    ),
    Question(
        "s-08",
        "What was the return rate of the 天猫 channel in 2026?",
        "metric",
        numbers=(
            (
                11.49,
                0.1149,
            ),
        ),
        sql=(
            "SELECT 100.0 * COUNT(*) FILTER (WHERE o.status = 'REFUND') / COUNT(*) "
            "FROM orders o JOIN stores s ON s.store_id = o.store_id WHERE o.status IN"
            " "
            "('PAID', 'REFUND') AND o.order_time >= TIMESTAMP '2026-01-01 00:00:00' "
            "AND o.order_time < TIMESTAMP '2027-01-01 00:00:00' AND s.channel = "
            "'天猫'"
        ),
        source="指标定义.md: 退货率",
    ),
    Question(
        "s-09",
        "上个月的销售额是多少元？",
        "period",
        numbers=((168810.8,),),
        sql=(
            "SELECT SUM(i.qty * i.unit_price - i.discount) / 100.0 FROM orders o JOIN"
            " "
            "order_items i ON i.order_id = o.order_id WHERE o.status = 'PAID' AND "
            "o.order_time >= TIMESTAMP '2026-10-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2026-11-01 00:00:00'"
        ),
        source="指标定义.md: 销售额",
    ),
    Question(
        "s-10",
        "What was the gross margin last month?",
        "period",
        numbers=(
            (
                37.22,
                0.3722,
            ),
        ),
        sql=(
            "SELECT 100.0 * SUM(i.qty * i.unit_price - i.discount - i.qty * "
            "p.cost_price) / 100.0 / (SUM(i.qty * i.unit_price - i.discount) / 100.0)"
            " "
            "FROM orders o JOIN order_items i ON i.order_id = o.order_id JOIN "
            "products p ON p.product_id = i.product_id WHERE o.status = 'PAID' AND "
            "o.order_time >= TIMESTAMP '2026-10-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2026-11-01 00:00:00'"
        ),
        source="指标定义.md: 毛利率",
    ),
    Question(
        "s-11",
        "2026年第三季度已支付订单中，手机数码类商品一共卖出多少件？",
        "count",
        numbers=((25,),),
        sql=(
            "SELECT SUM(i.qty) FROM orders o JOIN order_items i ON i.order_id = "
            "o.order_id JOIN products p ON p.product_id = i.product_id JOIN "
            "categories c ON c.category_id = p.category_id WHERE o.status = 'PAID' "
            "AND o.order_time >= TIMESTAMP '2026-07-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2026-10-01 00:00:00' AND c.category_name = '手机数码'"
        ),
    ),
    Question(
        "s-12",
        "Which category had the highest net sales in 2025?",
        "topk",
        facts=(("手机数码",),),
        sql=(
            "SELECT c.category_name FROM orders o JOIN order_items i ON i.order_id = "
            "o.order_id JOIN products p ON p.product_id = i.product_id JOIN "
            "categories c ON c.category_id = p.category_id WHERE o.status = 'PAID' "
            "AND o.order_time >= TIMESTAMP '2025-01-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2026-01-01 00:00:00' GROUP BY c.category_name ORDER BY "
            "SUM(i.qty * i.unit_price - i.discount) / 100.0 DESC LIMIT 1"
        ),
        source="指标定义.md: 销售额",
    ),
    Question(
        "s-13",
        "2026年销售额最高的三个商品是哪些？",
        "topk",
        facts=(
            ("空气净化器",),
            ("蓝牙耳机Pro",),
            ("吸尘器V8",),
        ),
        sql=(
            "SELECT p.product_name FROM orders o JOIN order_items i ON i.order_id = "
            "o.order_id JOIN products p ON p.product_id = i.product_id WHERE o.status"
            " "
            "= 'PAID' AND o.order_time >= TIMESTAMP '2026-01-01 00:00:00' AND "
            "o.order_time < TIMESTAMP '2027-01-01 00:00:00' GROUP BY p.product_name "
            "ORDER BY SUM(i.qty * i.unit_price - i.discount) / 100.0 DESC LIMIT 3"
        ),
        source="指标定义.md: 销售额",
    ),
    Question(
        "s-14",
        "How many paid orders did the 上海南京路店 store have in September 2026?",
        "count",
        numbers=((1,),),
        sql=(
            "SELECT COUNT(*) FROM orders o JOIN stores s ON s.store_id = o.store_id "
            "WHERE o.status = 'PAID' AND s.store_name = '上海南京路店' AND "
            "o.order_time >= TIMESTAMP '2026-09-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2026-10-01 00:00:00'"
        ),
    ),
    Question(
        "s-15",
        "VIP客户在2026年的销售额是多少元？",
        "metric",
        numbers=((200727.7,),),
        sql=(
            "SELECT SUM(i.qty * i.unit_price - i.discount) / 100.0 FROM orders o JOIN"
            " "
            "order_items i ON i.order_id = o.order_id JOIN customers u ON "
            "u.customer_id = o.customer_id WHERE o.status = 'PAID' AND o.order_time "
            ">= TIMESTAMP '2026-01-01 00:00:00' AND o.order_time < TIMESTAMP "
            "'2027-01-01 00:00:00' AND u.member_level >= 4"
        ),
        source="数据说明.docx: 会员等级 member_level ≥ 4 为 VIP 客户",
    ),
    Question(
        "s-16",
        "How many customers placed at least one paid order in 2026?",
        "count",
        numbers=((76,),),
        sql=(
            "SELECT COUNT(DISTINCT o.customer_id) FROM orders o WHERE o.status = "
            "'PAID' AND o.order_time >= TIMESTAMP '2026-01-01 00:00:00' AND "
            "o.order_time < TIMESTAMP '2027-01-01 00:00:00'"
        ),
    ),
    Question(
        "s-17",
        "2026年哪个城市的客户贡献的销售额最高？",
        "topk",
        facts=(("成都",),),
        sql=(
            "SELECT u.city FROM orders o JOIN order_items i ON i.order_id = "
            "o.order_id JOIN customers u ON u.customer_id = o.customer_id WHERE "
            "o.status = 'PAID' AND o.order_time >= TIMESTAMP '2026-01-01 00:00:00' "
            "AND o.order_time < TIMESTAMP '2027-01-01 00:00:00' GROUP BY u.city ORDER"
            " "
            "BY SUM(i.qty * i.unit_price - i.discount) / 100.0 DESC LIMIT 1"
        ),
        source="指标定义.md: 销售额",
    ),
    Question(
        "s-18",
        "What was the total refunded amount in 2026, in yuan?",
        "metric",
        numbers=((88794.8,),),
        sql=(
            "SELECT SUM(r.refund_amt) / 100.0 FROM refunds r WHERE r.refund_time >= "
            "TIMESTAMP '2026-01-01 00:00:00' AND r.refund_time < TIMESTAMP "
            "'2027-01-01 00:00:00'"
        ),
        source="数据说明.docx: 退款按退款时间 refund_time 归属期间",
    ),
    Question(
        "s-19",
        "今年以来一共有多少笔订单被取消？",
        "period",
        numbers=((32,),),
        sql=(
            "SELECT COUNT(*) FROM orders o WHERE o.status = 'CANCELLED' AND "
            "o.order_time >= TIMESTAMP '2026-01-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2026-11-16 00:00:00'"
        ),
    ),
    Question(
        "s-20",
        ("What is the gross profit of the 家用电器 category across all periods, in yuan?"),
        "metric",
        numbers=((198404.88,),),
        sql=(
            "SELECT SUM(i.qty * i.unit_price - i.discount - i.qty * p.cost_price) / "
            "100.0 FROM orders o JOIN order_items i ON i.order_id = o.order_id JOIN "
            "products p ON p.product_id = i.product_id JOIN categories c ON "
            "c.category_id = p.category_id WHERE o.status = 'PAID' AND "
            "c.category_name = '家用电器'"
        ),
        source="指标定义.md: 毛利",
    ),
    Question(
        "s-21",
        "门店渠道2025年的GMV是多少元？",
        "metric",
        numbers=((409979,),),
        sql=(
            "SELECT SUM(i.qty * i.unit_price) / 100.0 FROM orders o JOIN order_items "
            "i ON i.order_id = o.order_id JOIN stores s ON s.store_id = o.store_id "
            "WHERE o.status IN ('PAID', 'REFUND') AND o.order_time >= TIMESTAMP "
            "'2025-01-01 00:00:00' AND o.order_time < TIMESTAMP '2026-01-01 00:00:00'"
            " "
            "AND s.channel = '门店'"
        ),
        source="指标定义.md: GMV",
    ),
    Question(
        "s-22",
        "On average, how many units did a paid order contain in 2026?",
        "metric",
        numbers=((2.86,),),
        sql=(
            "SELECT 1.0 * SUM(i.qty) / COUNT(DISTINCT o.order_id) FROM orders o JOIN "
            "order_items i ON i.order_id = o.order_id WHERE o.status = 'PAID' AND "
            "o.order_time >= TIMESTAMP '2026-01-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2027-01-01 00:00:00'"
        ),
    ),
    Question(
        "s-23",
        "2025年哪个月的已支付订单最多？",
        "topk",
        facts=(("7月",),),
        sql=(
            "SELECT EXTRACT(MONTH FROM o.order_time) || '月' FROM orders o WHERE "
            "o.status = 'PAID' AND o.order_time >= TIMESTAMP '2025-01-01 00:00:00' "
            "AND o.order_time < TIMESTAMP '2026-01-01 00:00:00' GROUP BY 1 ORDER BY "
            "COUNT(*) DESC LIMIT 1"
        ),
    ),
    Question(
        "s-24",
        "How many products does the 美妆个护 category have?",
        "count",
        numbers=((4,),),
        sql=(
            "SELECT COUNT(*) FROM products p JOIN categories c ON c.category_id = "
            "p.category_id WHERE c.category_name = '美妆个护'"
        ),
    ),
    Question(
        "s-25",
        "上个季度的毛利率是多少？",
        "period",
        numbers=(
            (
                33.57,
                0.3357,
            ),
        ),
        sql=(
            "SELECT 100.0 * SUM(i.qty * i.unit_price - i.discount - i.qty * "
            "p.cost_price) / 100.0 / (SUM(i.qty * i.unit_price - i.discount) / 100.0)"
            " "
            "FROM orders o JOIN order_items i ON i.order_id = o.order_id JOIN "
            "products p ON p.product_id = i.product_id WHERE o.status = 'PAID' AND "
            "o.order_time >= TIMESTAMP '2026-07-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2026-10-01 00:00:00'"
        ),
        source="指标定义.md: 毛利率",
    ),
    Question(
        "s-26",
        "What was GMV year to date, in yuan?",
        "period",
        numbers=((1099450,),),
        sql=(
            "SELECT SUM(i.qty * i.unit_price) / 100.0 FROM orders o JOIN order_items "
            "i ON i.order_id = o.order_id WHERE o.status IN ('PAID', 'REFUND') AND "
            "o.order_time >= TIMESTAMP '2026-01-01 00:00:00' AND o.order_time < "
            "TIMESTAMP '2026-11-16 00:00:00'"
        ),
        source="指标定义.md: GMV",
    ),
    Question(
        "s-27",
        "2026年各门店（门店渠道）的销售额分别是多少元？",
        "breakdown",
        numbers=(
            (120645.3,),
            (163267,),
            (47417.4,),
        ),
        sql=(
            "SELECT s.store_name, SUM(i.qty * i.unit_price - i.discount) / 100.0 FROM"
            " "
            "orders o JOIN order_items i ON i.order_id = o.order_id JOIN stores s ON "
            "s.store_id = o.store_id WHERE o.status = 'PAID' AND o.order_time >= "
            "TIMESTAMP '2026-01-01 00:00:00' AND o.order_time < TIMESTAMP '2027-01-01"
            " "
            "00:00:00' AND s.channel = '门店' GROUP BY s.store_id, s.store_name ORDER"
            " "
            "BY s.store_id"
        ),
        source="指标定义.md: 销售额",
    ),
    Question(
        "s-28",
        ("Among the physical stores (门店), which one had the highest net sales in 2025?"),
        "topk",
        facts=(("上海南京路店",),),
        sql=(
            "SELECT s.store_name FROM orders o JOIN order_items i ON i.order_id = "
            "o.order_id JOIN stores s ON s.store_id = o.store_id WHERE o.status = "
            "'PAID' AND o.order_time >= TIMESTAMP '2025-01-01 00:00:00' AND "
            "o.order_time < TIMESTAMP '2026-01-01 00:00:00' AND s.channel = '门店' "
            "GROUP BY s.store_name ORDER BY SUM(i.qty * i.unit_price - i.discount) / "
            "100.0 DESC LIMIT 1"
        ),
        source="指标定义.md: 销售额",
    ),
    Question(
        "s-29",
        "按指标口径，退货率的分母包括哪些状态的订单？",
        "definition",
        facts=(
            ("PAID",),
            ("REFUND",),
        ),
        source="指标定义.md: 退货率 = REFUND 订单数 ÷ (PAID + REFUND 订单数)",
    ),
    Question(
        "s-30",
        "Which member levels count as VIP customers?",
        "definition",
        numbers=((4,),),
        source="数据说明.docx: 会员等级 member_level ≥ 4 为 VIP 客户",
    ),
    Question(
        "s-31",
        "By which time field is a refund assigned to a period?",
        "definition",
        facts=(
            (
                "refund_time",
                "退款时间",
                "refund time",
            ),
        ),
        source="数据说明.docx: 退款按退款时间 refund_time 归属期间",
    ),
    Question("s-32", "2024年的GMV是多少元？", "unanswerable"),
    Question("s-33", "What is the phone number of the customer with id 1?", "unanswerable"),
    Question("s-34", "各门店的员工人数是多少？", "unanswerable"),
    Question("s-35", "How much did we spend on advertising in 2026?", "unanswerable"),
    Question("s-36", "2026年10月扣除运费和税费后的净利润是多少元？", "unanswerable"),
)
