"""Cache scenarios any figure or lab draws: one rule, one k, the rows it predicts for a recording.

``scenario_rows``   the rows of one scenario: k = 0 is the history as recorded, k >= 1 the
                    counterfactual "refresh right after round k's write" (``prefixlab.cache.counterfactual``)
``rule_config_of``  plain options (breakpoints by block name) turned into rule arguments
``measures``        whether a server's measured hit can stand next to a rule's prediction
``BAR_PARTS``       the three parts of a request's prompt the bars show: read, written, uncached
"""
from __future__ import annotations

from prefixlab.cache import rules

BAR_PARTS = [("read", "从缓存读", "#16a34a"), ("write", "写入缓存", "#2563eb"), ("uncached", "按原价计算、不缓存", "#9ca3af")]


def rule_config_of(config: dict) -> dict:
    """Turn plain rule options into rule arguments (breakpoints given by block name)."""
    config = dict(config)
    if isinstance(config.get("breakpoints"), str):
        from prefixlab.cache.rules.anthropic import explicit

        config["breakpoints"] = explicit(config["breakpoints"])
    return config


def scenario_rows(recording, rule: str, config: dict, k: int, history: str = "frozen-day1"):
    """Rows of one scenario: k = 0 is the history as recorded (no refresh), k >= 1 the counterfactual."""
    from prefixlab.cache import calculator, counterfactual

    if k == 0:
        return calculator.analyze(recording, rule, sessions=history, **rule_config_of(config))
    return counterfactual.predict(recording, k, rule, history, **rule_config_of(config))


def measures(rule: str) -> bool:
    """Whether a server's measurement can be shown next to this rule: it predicts a real server's."""
    return rules.get(rule).SERVER is not None
