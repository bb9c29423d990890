"""The agent loop: ask the model, run the tools it asks for, repeat.

Before every model call the loop asks the memory design (injection.py) two
things: the current system text, and which messages to add or replace. If the
system text differs from the system message in the session, the loop replaces
it and records a ``system_refresh`` entry; an added message is a ``message``
entry, a replaced one a ``message_refresh``. Those are the moments a memory
write can change what the model sees, and where the prompt prefix may break.

With a compactor, the loop first counts the request it is about to send; over
the budget, older rounds are replaced by a summary (see compaction.py) and the
system prompt is rebuilt, so an edited AGENTS.md arrives with the new prefix.
"""
from __future__ import annotations

from typing import Callable, Protocol

from .compaction import Compactor
from .injection import MemoryInjection, Update
from .session import Session
from .tools import Toolbox


class Model(Protocol):
    def complete(self, messages: list[dict], tools: list[dict] | None = None, **params): ...


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


def sync_messages(session: Session, updates: list[Update]) -> list[str]:
    """Add (target None) or replace (target: the message's entry id) messages; say what changed."""
    done = []
    for target, message in updates:
        if target is None:
            session.append("message", message=message)
            done.append(f"added a {message['role']} message: {short(message['content'])}")
        else:
            session.append("message_refresh", targetId=target, message=message)
            done.append(f"replaced message {target}: {short(message['content'])}")
    return done


def run_task(task: str, *, model: Model, toolbox: Toolbox, session: Session,
             injection: MemoryInjection, max_rounds: int = 20,
             log: Callable[[str], None] = lambda line: None, compactor: Compactor | None = None) -> str:
    """Work on ``task`` until the model answers without tool calls; return that answer."""
    # The request first: a design that picks notes for it (select) needs it for the system prompt.
    task_text = injection.user_message(task, session.visible()[1])
    sync_system_prompt(session, injection())
    session.append("message", message={"role": "user", "content": task_text})
    for round_no in range(1, max_rounds + 1):
        if compactor and (tokens := compactor.tokens(session)) > compactor.budget:
            over = f"round {round_no}: about {tokens} tokens, over the budget of {compactor.budget}"
            if compactor.compact(session, tokens):
                injection.after_compaction()  # the prefix is new anyway: re-read AGENTS.md
                log(f"{over}: older rounds replaced by a summary")
            else:
                log(f"{over}, but no round is older than the {compactor.keep_rounds} kept; sent as it is")
        if sync_system_prompt(session, injection()):
            log(f"round {round_no}: system prompt refreshed from disk")
        for change in sync_messages(session, injection.updates(session.visible()[1])):
            log(f"round {round_no}: {change}")
        reply = model.complete(session.messages(), toolbox.definitions)
        session.append("model_call", round=round_no, request=reply.request, response=reply.response)
        session.append("message", message=reply.message)
        log(f"round {round_no}: {describe_usage(reply.response)}")
        calls = reply.message.get("tool_calls") or []
        if not calls:
            return reply.message["content"]
        for call in calls:
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            result = toolbox.call(name, arguments)
            log(f"  {name}({short(arguments)}) -> {short(result)}")
            session.append("message", message={"role": "tool", "tool_call_id": call["id"], "content": result})
    log(f"stopped: no final answer after {max_rounds} rounds")
    return ""


def describe_usage(response: dict) -> str:
    usage = response.get("usage") or {}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    cached_text = "not reported" if cached is None else str(cached)
    return f"prompt {usage.get('prompt_tokens', '?')} tokens, cached {cached_text}"


def short(text: str, width: int = 70) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= width else text[: width - 1] + "…"
