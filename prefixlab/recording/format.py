"""The recording format: what was sent to a model server, what it answered, in which order.

A recording is a directory::

    manifest.json      format, status, provenance, the sessions, the global request order
    <session>.jsonl    miniagent session files (entries of type model_call hold request + response)

A request the server refused (llama-server's HTTP 400 for a prompt longer than its slot's context)
is a ``model_call`` entry with an ``error`` instead of a ``response``: the HTTP status and the
server's JSON error body, ``{"status": 400, "body": {"error": {"code": 400, "message": ...,
"type": "exceed_context_size_error", "n_prompt_tokens": N, "n_ctx": M}}}``.

A request is a ``model_call`` entry, or a ``compaction`` entry whose summary a model wrote (it
keeps that summary request's ``request`` and ``response``; see ``miniagent/compaction.py``).
The order matters because a server's prompt cache is shared by every session
that talks to it. ``manifest.json`` is validated against ``data/recordings/schema.json``;
every ``model_call`` entry is checked field by field. Errors name the file, the
line and the field. A recording whose status is not ``complete`` is refused
unless the caller asks for incomplete ones explicitly.

The format is described for people in ``data/recordings/FORMAT.md``.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema

from miniagent.session import Session, SessionFileError

from prefixlab.paths import RECORDING_SCHEMA, RECORDINGS

FORMAT = "prefixlab-recording/1"


class RecordingError(ValueError):
    """A recording that cannot be used; the message says where and why."""


@dataclass(frozen=True)
class Call:
    """One request to the server and its answer, with its place in the global order."""

    seq: int  # position in the global order of requests to the server (0-based)
    session: str  # id of the session (path through a session file) it belongs to
    round: int
    epoch: int  # server lifetime: the cache starts empty when the epoch changes
    t: float  # seconds since the recording started
    entry_id: str
    request: dict = field(repr=False)
    response: dict | None = field(repr=False)  # None when the server refused the request (see error)
    kind: str = "model_call"  # or "compaction": the summary request of a compaction (round = the next call's)
    error: dict | None = field(default=None, repr=False)  # {"status": 400, "body": the server's JSON error}

    @property
    def refused(self) -> str | None:
        """The server's error message when it refused the request; None when it answered."""
        return None if self.error is None else self.error["body"]["error"]["message"]

    @property
    def prompt_tokens(self) -> int:
        if self.error is not None:
            return self.error["body"]["error"]["n_prompt_tokens"]
        return self.response["usage"]["prompt_tokens"]

    @property
    def cached_tokens(self) -> int | None:
        """The server's cached count, or None when it does not report one (never read as 0) or refused
        the request."""
        if self.response is None:
            return None
        details = self.response["usage"].get("prompt_tokens_details")
        if not isinstance(details, dict) or details.get("cached_tokens") is None:
            return None
        return details["cached_tokens"]

    @property
    def timings(self) -> dict | None:
        return None if self.response is None else self.response.get("timings")


@dataclass
class Recording:
    path: Path
    manifest: dict
    calls: list[Call]
    files: dict[str, Session] = field(default_factory=dict, repr=False)  # session files, read once by load()

    @property
    def provenance(self) -> dict:
        return self.manifest["provenance"]

    @property
    def complete(self) -> bool:
        return self.manifest["status"] == "complete"

    def session_info(self, session_id: str) -> dict:
        for info in self.manifest["sessions"]:
            if info["id"] == session_id:
                return info
        raise KeyError(f"{self.path}: no session {session_id!r}; have {[s['id'] for s in self.manifest['sessions']]}")

    def session_calls(self, session_id: str) -> list[Call]:
        self.session_info(session_id)
        return [c for c in self.calls if c.session == session_id]

    def session_path(self, session_id: str) -> list[dict]:
        """All entries of a session's path (system, messages, refreshes, calls), root first."""
        info = self.session_info(session_id)
        session = self.files.get(info["file"]) or Session.open(self.path / info["file"])
        return session.path_to(info["leaf"])


def _schema() -> dict:
    return json.loads(RECORDING_SCHEMA.read_text(encoding="utf-8"))


def _check_call(entry: dict, where: str) -> None:
    """The fields of a model_call entry the calculator relies on."""
    def need(obj, key, kind, path):
        if not isinstance(obj, dict) or key not in obj:
            raise RecordingError(f"{where}: field {path} is missing")
        if not isinstance(obj[key], kind) or kind is int and isinstance(obj[key], bool):
            raise RecordingError(f"{where}: field {path} should be {kind.__name__}, got {type(obj[key]).__name__}")
        return obj[key]

    request = need(entry, "request", dict, "request")
    messages = need(request, "messages", list, "request.messages")
    for i, message in enumerate(messages):
        need(message, "role", str, f"request.messages[{i}].role")
    if "error" in entry:
        if "response" in entry:
            raise RecordingError(f"{where}: a request has either a response or an error, not both")
        if entry["type"] != "model_call":
            raise RecordingError(f"{where}: field error: only a model_call can record a refused request")
        error = need(entry, "error", dict, "error")
        status = need(error, "status", int, "error.status")
        if not 400 <= status < 500:
            raise RecordingError(f"{where}: field error.status should be a 4xx status (the server refused the "
                                 f"request), got {status}")
        body = need(need(error, "body", dict, "error.body"), "error", dict, "error.body.error")
        need(body, "message", str, "error.body.error.message")
        need(body, "type", str, "error.body.error.type")
        if need(body, "n_prompt_tokens", int, "error.body.error.n_prompt_tokens") < 1:
            raise RecordingError(f"{where}: field error.body.error.n_prompt_tokens should be at least 1")
        return
    response = need(entry, "response", dict, "response")
    usage = need(response, "usage", dict, "response.usage")
    need(usage, "prompt_tokens", int, "response.usage.prompt_tokens")
    details = usage.get("prompt_tokens_details")
    if details is not None and details.get("cached_tokens") is not None:
        need(details, "cached_tokens", int, "response.usage.prompt_tokens_details.cached_tokens")


def load(path: Path | str, allow_incomplete: bool = False) -> Recording:
    """Load and validate a recording directory."""
    path = Path(path)
    manifest_path = path / "manifest.json"
    if not manifest_path.is_file():
        raise RecordingError(f"{path}: not a recording (no manifest.json)")
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as err:
        raise RecordingError(f"{manifest_path}:{err.lineno}: not valid JSON ({err.msg})") from None
    try:
        jsonschema.validate(manifest, _schema())
    except jsonschema.ValidationError as err:
        field_path = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        raise RecordingError(f"{manifest_path}: field {field_path}: {err.message}") from None
    if manifest["status"] != "complete" and not allow_incomplete:
        raise RecordingError(f"{path}: this recording is {manifest['status']!r}, not complete "
                             "(it stopped before the end); re-record it or pass allow_incomplete=True")

    if manifest["status"] == "complete" and not manifest["sessions"]:
        raise RecordingError(f"{manifest_path}: field sessions: a complete recording needs at least one session")

    # Read every request entry of every session file once, with its line number.
    entries: dict[str, tuple[dict, str]] = {}
    rounds: dict[str, int] = {}  # compaction entry id -> round of the first call after it
    files: dict[str, Session] = {}
    sessions = {s["id"]: s for s in manifest["sessions"]}
    for file in sorted({s["file"] for s in manifest["sessions"]}):
        file_path = path / file
        try:
            session = files[file] = Session.open(file_path)
        except (OSError, SessionFileError) as err:
            raise RecordingError(f"{file_path}: cannot read session file ({err})") from None
        if session.dropped and manifest["status"] == "complete":
            raise RecordingError(f"{file_path}: {session.dropped}, but the manifest says complete")
        for line, entry in enumerate(session.entries, start=1):
            if is_request(entry):
                _check_call(entry, f"{file_path}:{line}")
                entries[entry["id"]] = (entry, f"{file_path}:{line}")
            if entry["type"] == "compaction" and "request" in entry:
                rounds[entry["id"]] = _round_after(session.entries, line - 1)

    calls = []
    for seq, item in enumerate(manifest["order"]):
        where = f"{manifest_path}: order[{seq}]"
        if item["session"] not in sessions:
            raise RecordingError(f"{where}: field session: unknown session {item['session']!r}")
        if item["call"] not in entries:
            raise RecordingError(f"{where}: field call: no model_call entry {item['call']!r} "
                                 f"(nor a compaction entry with a summary request) in {sessions[item['session']]['file']}")
        entry, _ = entries[item["call"]]
        calls.append(Call(seq, item["session"], entry.get("round", rounds.get(entry["id"], 0)), item["epoch"],
                          item["t"], item["call"], entry["request"], entry.get("response"), entry["type"],
                          entry.get("error")))
    return Recording(path, manifest, calls, files)


def is_request(entry: dict) -> bool:
    """An entry that holds one request to the server: a ``model_call``, or a ``compaction`` whose
    summary a model wrote (a scripted or typed summary sent nothing)."""
    return entry["type"] == "model_call" or (entry["type"] == "compaction" and "request" in entry)


def _round_after(entries: list[dict], index: int) -> int:
    """The round of the first model_call below ``entries[index]`` in its session tree (0 if none):
    a compaction happens just before that round's call."""
    below = {entries[index]["id"]}
    for entry in entries[index + 1:]:
        if entry["parentId"] in below:
            if entry["type"] == "model_call":
                return entry.get("round", 0)
            below.add(entry["id"])
    return 0


def find_recordings(root: Path = RECORDINGS) -> list[Path]:
    """Every recording directory under ``root`` (default: the shipped ones), sorted."""
    return sorted(p.parent for p in root.glob("*/manifest.json"))


def write_manifest(path: Path, manifest: dict) -> None:
    """Replace manifest.json atomically, so a reader never sees half of it."""
    path.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path, prefix=".manifest.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=1)
        f.write("\n")
    os.replace(tmp, path / "manifest.json")
