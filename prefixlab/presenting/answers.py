"""What every exercise checker says the same way: answer first, write a whole number, and "more or less"."""
from __future__ import annotations

ASK = "先把你的答案填进上面的变量,再运行这个单元格。"
NOT_INT = "答案要写成整数,比如 1234(不带小数点、不加引号),收到的是 {value!r}。"
NOT_NUMBER = "答案要写成一个数,比如 1234 或 0.25(不加引号),收到的是 {value!r}。"


def is_int(value) -> bool:
    """A whole number typed by the learner (True/False are ints in Python, not answers)."""
    return isinstance(value, int) and not isinstance(value, bool)


def ask(value, *, whole: bool = True) -> str:
    """What a checker says when ``value`` is not a (whole) number: answer first (None), or write it as one."""
    if value is None or value is ...:
        return ASK
    return (NOT_INT if whole else NOT_NUMBER).format(value=value)


def more_or_less(guess: int, answer: int) -> str:
    return "多了" if guess > answer else "少了"
