"""How close a predicted token count must be to count as right.

A reader predicts a `cached_tokens` number from the block tables on the page, which give block
boundaries but not every token of the template's glue; insisting on the exact integer would test
arithmetic on numbers the page does not show. Each question states this tolerance.
"""
from __future__ import annotations

TOKENS = 5  # a few tokens of template glue either way; never as wide as one message
WORDS = f"和服务器报告的数相差不超过 {TOKENS} 个 token 都算对"


def near(guess: int, answer: int) -> bool:
    return abs(guess - answer) <= TOKENS
