"""The checkers' shared messages: answer first, and a clear word when the answer is not written as a number."""
from __future__ import annotations

import pytest

from prefixlab.presenting.answers import ASK, ask, is_int


def test_no_answer_yet_asks_for_one():
    assert ask(None) == ASK and ask(...) == ASK


@pytest.mark.parametrize("value", [10.0, "10", "1,234", [3]])
def test_an_answer_not_written_as_a_whole_number_is_told_so(value):
    message = ask(value)
    assert message != ASK and "整数" in message and repr(value) in message


def test_where_a_fraction_is_allowed_the_message_says_a_number():
    message = ask("0.25", whole=False)
    assert "整数" not in message and "一个数" in message and "'0.25'" in message


def test_booleans_are_not_whole_numbers():
    assert not is_int(True) and is_int(3) and not is_int(3.0)

