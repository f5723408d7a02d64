"""Real data: the 16 WMT17 en-de systems give exactly HF's results from expected.json."""

import pytest

pytestmark = pytest.mark.slow  # 16 systems of 3,004 segments

SETTINGS = {"hf_bleu": {}, "hf_bleu_smooth": {"smooth": True}, "hf_bleu_max_order_2": {"max_order": 2}}


@pytest.mark.parametrize("key", SETTINGS)
def test_every_system_equals_hf(bleu, wmt17, key):
    assert len(wmt17["systems"]) == 16
    for name, hypotheses in wmt17["systems"].items():
        result = bleu.compute(predictions=hypotheses, references=wmt17["reference"], **SETTINGS[key])
        assert result == wmt17["expected"][name][key], name
