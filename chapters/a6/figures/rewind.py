"""Lesson A6·4's naive design, measured: "go back n rounds" on a linear list versus on the tree.

A chat loop that keeps its conversation as one list can only go back by cutting the list:
``entries = entries[:cut]``. Everything after the cut -- the rounds you went back over, their
tool results, the recorded requests and answers -- is gone. miniagent's session file is a tree:
going back appends a new branch below the cut point and deletes nothing.

:func:`rewind` measures both on a recorded session: the entries a truncated list loses, and how
many of those same entries the recorded session file (the tree, after the fork was really made)
still holds.
"""
from __future__ import annotations

from dataclasses import dataclass

from prefixlab.recording.format import Recording


@dataclass(frozen=True)
class Rewind:
    session: str
    rounds_back: int
    kept_rounds: int       # rounds 1..kept_rounds stay on the path
    cut_after: str         # id of the last entry kept (where a fork would start)
    lost: tuple[dict, ...]  # the entries a linear list drops when it is cut there
    lost_by_tree: tuple[dict, ...]  # those of them missing from the session file (the tree)

    @property
    def lost_entries(self) -> int:
        return len(self.lost)

    @property
    def lost_messages(self) -> int:
        return sum(e["type"] == "message" for e in self.lost)

    @property
    def lost_requests(self) -> int:
        """Recorded requests (model_call entries) with their measured answers."""
        return sum(e["type"] == "model_call" for e in self.lost)

    @property
    def lost_entries_tree(self) -> int:
        return len(self.lost_by_tree)


def rewind(recording: Recording, session: str, rounds_back: int) -> Rewind:
    """Go back ``rounds_back`` rounds from the end of ``session``: keep rounds 1..N-rounds_back.

    The linear list keeps the path up to the last entry of round N-rounds_back (its tool result)
    and loses the rest; the tree is the session's file as recorded, all branches included.
    """
    path = recording.session_path(session)
    calls = [e for e in path if e["type"] == "model_call"]
    if not 1 <= rounds_back < len(calls):
        raise ValueError(f"{session} has {len(calls)} rounds; can go back 1 to {len(calls) - 1}, not {rounds_back}")
    kept_rounds = len(calls) - rounds_back
    first_gone = calls[kept_rounds]  # the call of the first round that is undone
    cut = path.index(first_gone)
    lost = tuple(path[cut:])
    file = recording.files[recording.session_info(session)["file"]]
    in_file = {e["id"] for e in file.entries}
    return Rewind(session, rounds_back, kept_rounds, first_gone["parentId"], lost,
                  tuple(e for e in lost if e["id"] not in in_file))
