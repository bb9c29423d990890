"""``python -m prefixlab bill --rule deepseek|kimi|qwen`` prices every shipped recording."""
import pytest

from prefixlab.paths import RECORDINGS
from prefixlab.presenting import bill

MODELS = {"deepseek": "deepseek-v4-flash", "kimi": "kimi-k3-1-pro", "qwen": "qwen3-max"}
SHIPPED = sorted(p.name for p in RECORDINGS.iterdir() if (p / "manifest.json").exists())


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_recording_bills_under_the_new_rules(name):
    b = bill.bill(RECORDINGS / name)
    for rule, model in MODELS.items():
        cost = bill.price(b, model, rule)
        assert cost.total > 0
        assert {t.name for t in cost.terms} >= {"uncached", "read"}


def test_the_command_line(capsys):
    name = "a5-1-triggers-smollm2-llamacpp"
    assert bill.main([str(RECORDINGS / name), "--rule", "deepseek", "--model", "deepseek-v4-flash",
                      "--no-requests"]) == 0
    assert "rule deepseek" in capsys.readouterr().out
    assert bill.main([str(RECORDINGS / name), "--rule", "kimi", "--model", "deepseek-v4-flash"]) == 2
