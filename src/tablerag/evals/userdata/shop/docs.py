"""The shop's definition documents: a Markdown table of metric definitions with their calibers
(``指标定义.md``) and a Word note on the data (``数据说明.docx``: units, periods, VIP)."""

from __future__ import annotations

import io
from pathlib import Path

import docx

from tablerag.evals.userdata.files import FIXED_TIME, fixed_zip

DEFINITIONS_FILE = "指标定义.md"
NOTES_FILE = "数据说明.docx"

METRICS: tuple[tuple[str, str, str, str], ...] = (
    (
        "GMV",
        "GMV",
        "Σ(数量×单价)",
        "状态为 PAID 或 REFUND 的订单（不含 CANCELLED）；按下单时间 order_time 归属期间；单位：元",
    ),
    ("销售额", "Net sales", "Σ(数量×单价−优惠)", "仅 PAID 订单；按下单时间归属期间；单位：元"),
    (
        "毛利",
        "Gross profit",
        "Σ(数量×单价−优惠) − Σ(数量×成本价)",
        "仅 PAID 订单；成本价取商品表 cost_price；单位：元",
    ),
    ("毛利率", "Gross margin", "毛利 ÷ 销售额", "仅 PAID 订单；百分比"),
    ("客单价", "Average order value", "销售额 ÷ PAID 订单数", "订单数按 order_id 去重；单位：元"),
    (
        "退货率",
        "Return rate",
        "REFUND 订单数 ÷ (PAID + REFUND 订单数)",
        "按下单时间归属期间；CANCELLED 订单不计入分子和分母",
    ),
)
"""指标, 英文名, 计算公式, 口径: the rows of the definitions table."""

DEFINITIONS = (
    "# 经营指标定义（口径）\n\n"
    "数据来源：零售业务库（orders、order_items、products、categories、customers、stores、"
    "refunds）。\n库中所有金额字段以“分”存储，报表一律换算为“元”（÷100）。\n\n"
    "| 指标 | 英文名 | 计算公式 | 口径 |\n| --- | --- | --- | --- |\n"
    + "".join(f"| {' | '.join(row)} |\n" for row in METRICS)
    + "\n说明：数量 = order_items.qty，单价 = order_items.unit_price，"
    "优惠 = order_items.discount。\n"
)

NOTES: tuple[str, ...] = (
    "一、金额单位：orders.pay_amt、order_items.unit_price、order_items.discount、"
    "products.list_price、products.cost_price、refunds.refund_amt 均以分为单位存储，"
    "对外报告时除以100换算为元。",
    "二、订单状态：PAID 为已支付，REFUND 为已退货退款，CANCELLED 为已取消（未支付）。",
    "三、期间归属：订单按下单时间 order_time 归属期间；退款按退款时间 refund_time 归属期间。",
    "四、会员：会员等级 member_level 取值 1 至 5，会员等级 member_level ≥ 4 为 VIP 客户。",
    "五、渠道：stores.channel 取值为 自营商城、天猫、门店；门店渠道包括上海南京路店、北京西单店、"
    "广州天河店。",
    "六、客户手机号属于个人敏感信息，分析账号无权查询。",
)


def write_docs(directory: Path) -> list[Path]:
    """Write the two documents into ``directory``; their bytes are fixed."""
    directory.mkdir(parents=True, exist_ok=True)
    md = directory / DEFINITIONS_FILE
    md.write_bytes(DEFINITIONS.encode("utf-8"))
    word = directory / NOTES_FILE
    document = docx.Document()
    document.add_heading("零售业务库数据说明", level=0)
    for line in NOTES:
        document.add_paragraph(line)
    props = document.core_properties
    props.title, props.author = "零售业务库数据说明", "数据部"
    props.created = props.modified = FIXED_TIME
    props.revision = 1
    buffer = io.BytesIO()
    document.save(buffer)
    word.write_bytes(fixed_zip(buffer.getvalue()))
    return [md, word]
