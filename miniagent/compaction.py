"""Compaction: past a token budget, one summary message replaces the older rounds.

Before each model call (a step the loop runs, see loop.py) the compactor
counts the tokens of the request about to be sent. Over the budget, everything
older than the last ``keep_rounds`` rounds is summarised, and the session gets
a ``compaction`` entry. Nothing is
deleted from the file; only the path the model sees changes, to

    system prompt + summary message + the rounds kept after the compaction point

A later compaction works the same way: its summary replaces the first summary
and the rounds after it that are not kept.

- A round is one model call: the assistant message, the tool results that
  answer it, and the user message(s) right before it. A round is never split
  (a tool result must follow its call), so one round larger than the budget is
  kept whole, and with ``keep_rounds`` rounds or fewer there is nothing to
  compact: the request goes out over the budget.
- The budget is counted by ``count_tokens``. The default, ``estimate_tokens``,
  is the UTF-8 bytes of the messages as JSON, divided by 4. It is only an
  estimate (leave a margin), but it is known before the call, includes the
  tool results about to be sent (the server's ``prompt_tokens`` is one reply
  behind), needs no server (a resumed session, a scripted model) and is the
  same for every server. Bytes, not characters: a Chinese character is about
  one token, not a quarter of one. Pass a real tokenizer to count exactly.
- The summary message is a ``user`` message starting with ``SUMMARY_HEADER``:
  notes handed to the model, which every chat template accepts (a second
  system message is refused by many).

When to compact is the budget: pass ``threshold(window, reserve)`` to compact
when the request would come within ``reserve`` tokens of the server's context
``window`` (room for the summary call's answer and the next reply). The other
trigger, ``max_messages``, compacts as soon as the path holds more than that
many messages, however short they are (left off by default).

The summary call is the older messages plus ``SUMMARY_REQUEST``. By default it
offers no tools, so its prompt is rendered without them and differs from the
agent's requests right where the tool definitions were: the server computes it
all again. ``model_summariser(model, tools=...)`` offers the agent's tools, so
the summary request starts with exactly what the last request started with and
the server reads that part from its cache.

What the summary keeps is the request's job, and a summary of a summary keeps only what the
first one kept. ``SUMMARY_REQUEST`` asks in a few words; ``STRUCTURED_REQUEST`` (opt-in:
``model_summariser(model, request=STRUCTURED_REQUEST)``) asks for a hand-off note in fixed
sections, the user's rules first and word for word. ``Compactor(keep_user_messages=True)``
(opt-in) does not trust the summary with what the user wrote: the user messages it replaces are
kept word for word at the top of the summary message (the entry's ``userMessages``), and the next
compaction carries them on, however its summary turns out.

The compactor runs before the steps that build the system prompt: they see the
new ``compaction`` entry, and the memory designs re-read AGENTS.md then (injection.py).

The entry: ``{"type": "compaction", "message": <the summary message>,
"firstKeptId": <the first kept message entry>, "tokensBefore": N}``, plus the
summary call's ``request`` and ``response`` when a model wrote the summary, and
``userMessages`` (the texts kept word for word) when ``keep_user_messages`` is on. A refused
summary (empty, or longer than what it replaces) leaves the history as it is and writes
``{"type": "compaction_refused", "reason": ..., "tokensBefore": N}`` (plus the call) instead.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Callable

from .model import ModelReply
from .session import KINDS, Kind, Session, SessionFileError

KEEP_ROUNDS = 2  # the latest call and its results stay word for word, and the step before it
SUMMARY_HEADER = "# Summary of the earlier conversation"
SUMMARY_REQUEST = """\
Summarise the conversation so far. You will continue the work from your summary alone, so keep:
the user's task and constraints (quote them if short), what you did and found (files, commands,
results), what you decided and why, and what is left to do. Answer with the summary only."""
# A hand-off note in fixed sections (opt-in): the sections of pi's and Codex's compaction prompts,
# the user's rules first and copied word for word, as Claude Code's asks for constraints.
STRUCTURED_REQUEST = """\
Write a hand-off note for another assistant who will continue this task from your note alone.
Use exactly these sections, in this order:

## Rules
Every rule or constraint the user gave, copied word for word. If there are none, write (none).

## Task
What the user asked for.

## Done
What was done and found: files, commands, results.

## Next
What is left to do, in order.

Answer with the note only."""
USER_MESSAGES_HEADER = "The user's messages, word for word:"

# Older messages (system prompt first) -> the summary: a text, or a model's reply to keep on record.
Summariser = Callable[[list[dict]], str | ModelReply]


def estimate_tokens(messages: list[dict]) -> int:
    """About one token per 4 bytes of the messages as JSON (roles and tool calls count too)."""
    return math.ceil(len(json.dumps(messages, ensure_ascii=False).encode("utf-8")) / 4)


def threshold(window: int, reserve: int) -> int:
    """The budget that leaves ``reserve`` tokens of a ``window``-token context free."""
    if not 0 <= reserve < window:
        raise ValueError(f"the reserve ({reserve}) must be at least 0 and smaller than the window ({window})")
    return window - reserve


def model_summariser(model, tools: list[dict] | None = None, request: str = SUMMARY_REQUEST) -> Summariser:
    """Ask ``model``: the messages it saw, then ``request`` (``SUMMARY_REQUEST`` or ``STRUCTURED_REQUEST``).

    Without ``tools`` none are offered, so the answer is text, but the prompt no longer starts
    like the agent's (the chat template writes the tools into the system turn). With the agent's
    ``tools`` the prompt starts exactly as the agent's last request did, and a server with a
    prefix cache reads that part instead of computing it again."""
    def summarise(messages: list[dict]) -> ModelReply:
        sent = messages + [{"role": "user", "content": request}]
        return model.complete(sent, tools) if tools else model.complete(sent)
    return summarise


def round_starts(chat: list[dict]) -> list[int]:
    """The index in ``chat`` (no system message) where each round starts."""
    starts = []
    for i, message in enumerate(chat):
        if message["role"] == "assistant":
            start = i
            while start > 0 and chat[start - 1]["role"] == "user":
                start -= 1  # the user message(s) this call answers belong to its round
            starts.append(start)
    return starts


@dataclass
class Compactor:
    budget: int  # tokens; a request counted above this is compacted first
    summarise: Summariser
    keep_rounds: int = KEEP_ROUNDS
    count_tokens: Callable[[list[dict]], int] = estimate_tokens
    max_messages: int | None = None  # also compact when the path holds more messages than this
    keep_user_messages: bool = False  # keep the replaced user messages word for word above the summary

    def __post_init__(self):
        if self.keep_rounds < 1:
            raise ValueError("keep_rounds must be at least 1: the latest tool results must reach the model")
        if self.max_messages is not None and (isinstance(self.max_messages, bool)
                                              or not isinstance(self.max_messages, int) or self.max_messages < 1):
            raise ValueError(f"max_messages must be a whole number, 1 or more, not {self.max_messages!r}")

    # -- the step the loop runs (loop.Step): it runs before the steps that build the prompt ----------
    def start(self, session: Session, task: str) -> str:
        return task

    def before_call(self, session: Session, round_no: int, log: Callable[[str], None]) -> None:
        """Over the budget (or the message count), compact; the next steps then build their prompt
        on the new prefix."""
        tokens, count = self.tokens(session), len(session.messages())
        if tokens > self.budget:
            over = f"round {round_no}: about {tokens} tokens, over the budget of {self.budget}"
        elif self.max_messages is not None and count > self.max_messages:
            over = f"round {round_no}: {count} messages, over the limit of {self.max_messages}"
        else:
            return
        entry = self.compact(session, tokens)
        if entry is None:
            log(f"{over}, but no round is older than the {self.keep_rounds} kept; sent as it is")
        elif entry["type"] == "compaction_refused":
            log(f"{over}, but the summary was refused ({entry['reason']}); the history is kept and sent as it is")
        else:
            log(f"{over}: older rounds replaced by a summary")

    def tokens(self, session: Session) -> int:
        """The count of the request the session would send now."""
        return self.count_tokens(session.messages())

    def compact(self, session: Session, tokens: int) -> dict | None:
        """Replace what is older than the kept rounds with a summary; None if nothing is older.

        A summary that is empty, or longer than the messages it would replace, is refused: the
        history stays, and a ``compaction_refused`` entry says why (with the summary call, which
        was paid for). An empty summary would drop the task from every later request without a
        word; a longer one saves nothing."""
        _, chat = session.visible()
        starts = round_starts([message for _, message in chat])
        if len(starts) <= self.keep_rounds:
            return None
        kept = chat[starts[-self.keep_rounds]:]
        result = self.summarise(session.messages()[: -len(kept)])  # the system prompt and the older rounds
        summary, call = result, {}
        if isinstance(result, ModelReply):  # a model wrote it: keep its exact request and response
            # Offered tools, a model may answer with a call and no text: only the text is a summary.
            summary = result.message.get("content") or ""
            call = {"request": result.request, "response": result.response}
        replaced = [message for _, message in chat[:starts[-self.keep_rounds]]]
        if reason := summary_problem(summary, replaced, self.count_tokens):
            return session.append("compaction_refused", reason=reason, tokensBefore=tokens, **call)
        if not self.keep_user_messages:
            message = {"role": "user", "content": f"{SUMMARY_HEADER}\n\n{summary.strip()}"}
            return session.append("compaction", message=message, firstKeptId=kept[0][0], tokensBefore=tokens,
                                  **call)
        users = replaced_user_messages(session, chat[:starts[-self.keep_rounds]])
        quoted = "".join(f"{quote(text)}\n\n" for text in users)
        message = {"role": "user",
                   "content": f"{SUMMARY_HEADER}\n\n{USER_MESSAGES_HEADER}\n\n{quoted}{summary.strip()}"}
        return session.append("compaction", message=message, firstKeptId=kept[0][0], tokensBefore=tokens,
                              userMessages=users, **call)


def summary_problem(summary, replaced: list[dict], count_tokens) -> str | None:
    """Why ``summary`` must not replace the messages ``replaced``, or None. Both sides are counted
    with the compactor's own ``count_tokens``, the summary as a user message of its text."""
    if not isinstance(summary, str) or not summary.strip():
        return "the summary is empty"
    size = count_tokens([{"role": "user", "content": summary.strip()}])
    history = count_tokens(replaced)
    if size > history:
        return f"the summary (about {size} tokens) is longer than the history it would replace (about {history})"
    return None


def quote(text: str) -> str:
    """``text`` as a Markdown block quote: every line starts with ``>``."""
    return "\n".join(f"> {line}" if line else ">" for line in text.split("\n"))


def replaced_user_messages(session: Session, replaced: list[tuple[str, dict]]) -> list[str]:
    """The user's own texts among the messages a compaction replaces, oldest first: those an earlier
    compaction kept (its ``userMessages``), then the user messages after it (not tool results)."""
    compactions = {e["id"]: e for e in session.entries if e.get("type") == "compaction"}
    texts = []
    for entry_id, message in replaced:
        if entry_id in compactions:
            texts += compactions[entry_id].get("userMessages", [])
        elif message["role"] == "user" and isinstance(message.get("content"), str):
            texts.append(message["content"])
    return texts


def compacted(session: Session, chat: list[tuple[str, dict]], entry: dict) -> list[tuple[str, dict]]:
    """What a ``compaction`` entry does to the chat the model sees: the summary stands in for
    everything before the first kept message."""
    ids, first_kept = [i for i, _ in chat], entry.get("firstKeptId")
    if first_kept not in ids:
        raise SessionFileError(f"{session.path}: compaction {entry['id']} keeps from "
                               f"{first_kept!r}, which is not a message on its path")
    return [(entry["id"], entry["message"])] + chat[ids.index(first_kept):]


# The entries this module writes (session.py): both hold the summary call, when a model wrote it.
KINDS["compaction"] = Kind(("firstKeptId",), message=True, call=True, view=compacted)
KINDS["compaction_refused"] = Kind(call=True)
