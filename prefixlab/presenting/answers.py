"""What every exercise checker says the same way: the prompt to answer first, and "more or less"."""
from __future__ import annotations

ASK = "先把你的答案填进上面的变量,再运行这个单元格。"


def is_int(value) -> bool:
    """A whole number typed by the learner (True/False are ints in Python, not answers)."""
    return isinstance(value, int) and not isinstance(value, bool)


def more_or_less(guess: int, answer: int) -> str:
    return "多了" if guess > answer else "少了"
