"""The session's system message, and the step of a plain agent.

``sync_system_prompt`` makes the system message the model sees read a given text: a
``system`` entry the first time, a ``system_refresh`` entry whenever the text changes later
(session.py). ``FixedPrompt`` is the plainest step the loop can run (loop.py): one system
prompt, the same for the whole task. The memory designs (injection.py) build a text that may
change from call to call, and set it with the same function.
"""
from __future__ import annotations

from typing import Callable

from .session import Session


def sync_system_prompt(session: Session, text: str) -> bool:
    """Make the session's system message equal ``text``; True if it changed."""
    messages = session.messages()
    if not messages or messages[0]["role"] != "system":
        session.append("system", content=text)
        return True
    if messages[0]["content"] != text:
        session.append("system_refresh", content=text)
        return True
    return False


class FixedPrompt:
    """A system prompt that never changes: set when the task starts, left alone before each call."""

    def __init__(self, text: str):
        self.text = text

    def start(self, session: Session, task: str) -> str:
        sync_system_prompt(session, self.text)
        return task

    def before_call(self, session: Session, round_no: int, log: Callable[[str], None]) -> None:
        pass
