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
that talks to it. ``manifest.json`` is validated against ``data/recordings/schema.json``,
then every field the code reads and the schema leaves open (the chat template's text, the
tokenizer's path, the server's flags, ...); every session file must exist, every entry have a
type and a unique id, every session's leaf be an entry of its file, every request in ``order``
lie on its session's path, once; every request entry is checked against
``data/recordings/entry.schema.json`` (``entries.py``). Each problem
is one error naming the file, the line (or sessions[i] / order[i]) and the field, and what was
expected. A recording whose status is not ``complete`` is refused unless the caller asks for
incomplete ones explicitly.

The format is described for people in ``data/recordings/FORMAT.md``.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import jsonschema

import miniagent.children  # noqa: F401 (what a child entry means: session.KINDS; session_cli brings the rest)
from miniagent.session import Session, SessionFileError
from miniagent.session_cli import ContinuedSession  # a file a crash cut off: its complete entries

from prefixlab.paths import RECORDING_SCHEMA, RECORDINGS

from .entries import check_entry
from .entries import json_type as _json_type

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
    launched: float | None = None  # server clock: when it was launched on a slot (order[].launched)
    done: float | None = None      # server clock: when its slot was released (order[].done); None: before the next request

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
        session = self.files.get(info["file"]) or ContinuedSession.open(self.path / info["file"])
        return session.path_to(info["leaf"])


def _schema() -> dict:
    return json.loads(RECORDING_SCHEMA.read_text(encoding="utf-8"))


# -- validation: every field the loader, the calculator, verify, report and compare read ------------

def _kind_words(kinds: tuple) -> str:
    """'a string', 'an integer', 'a number', 'a string or an object' ... for the types in ``kinds``."""
    if float in kinds:
        return "a number"
    return " or ".join({dict: "an object", list: "an array", str: "a string", int: "an integer"}[k] for k in kinds)


def _field(obj, dotted: str, kinds: tuple, what: str, where: str, *, prefix: str = "", required: bool = True):
    """The value at ``dotted`` (e.g. ``response.usage.prompt_tokens``) inside ``obj``, type-checked.

    ``what`` says in words what belongs there; ``prefix`` is where ``obj`` itself sits (for the
    message). A missing optional field, or an optional one that is null, reads as None. JSON true
    and false are refused where a number is expected.
    """
    value, walked = obj, prefix
    for part in dotted.split("."):
        if value is None and not required:  # e.g. choices[0].message null: nothing to read
            return None
        if not isinstance(value, dict):
            raise RecordingError(f"{where}: field {walked} should be an object, got {_json_type(value)}")
        walked = f"{walked}.{part}" if walked else part
        if part not in value:
            if not required:
                return None
            raise RecordingError(f"{where}: field {walked} is missing (expected {_kind_words(kinds)}: {what})")
        value = value[part]
    if value is None and not required:
        return None
    if not isinstance(value, kinds) or isinstance(value, bool):
        raise RecordingError(f"{where}: field {walked} should be {_kind_words(kinds)}, got {_json_type(value)} "
                             f"({what})")
    return value


def _check_provenance(manifest: dict, where: str) -> None:
    """What the calculator, verify and the book read from the provenance (the schema asks for less)."""
    _field(manifest, "provenance.chat_template.text", (str,), "the chat template's full text", where)
    _field(manifest, "provenance.tokenizer.path", (str,), "the path of tokenizer.json", where)
    _field(manifest, "provenance.server.kind", (str,), "the server, such as llama-server", where)
    flags = _field(manifest, "provenance.server.flags", (list,), "the server's command-line arguments", where)
    for i, flag in enumerate(flags):
        if not isinstance(flag, (str, int, float)) or isinstance(flag, bool):
            raise RecordingError(f"{where}: field provenance.server.flags[{i}] should be a string, "
                                 f"got {_json_type(flag)}")
    if _field(manifest, "provenance.server.props", (dict,), "the server's /props", where,
              required=False) is not None:
        _field(manifest, "provenance.server.props.n_ctx", (int,), "the context size", where, required=False)
    _field(manifest, "provenance.model.name", (str,), "the model file's name", where)
    _field(manifest, "between_days_s", (int, float), "seconds between recorded days", where, required=False)


def _check_call(entry: dict, where: str) -> None:
    """The fields of a request entry (a model_call, or a compaction with its summary request):
    ``data/recordings/entry.schema.json``, through ``entries.check_entry``."""
    try:
        check_entry(entry, where)
    except ValueError as err:
        raise RecordingError(str(err)) from None


def load(path: Path | str, allow_incomplete: bool = False) -> Recording:
    """Load and validate a recording directory."""
    path = Path(path)
    manifest_path = path / "manifest.json"
    manifest = _read_manifest(path)
    if manifest["status"] != "complete" and not allow_incomplete:
        why = f": {manifest['error']}" if manifest.get("error") else ""
        raise RecordingError(f"{path}: this recording is {manifest['status']!r}, not complete (it stopped before "
                             f"the end{why}); re-record it, or read what it holds from Python with "
                             "load(path, allow_incomplete=True)")

    if manifest["status"] == "complete" and not manifest["sessions"]:
        raise RecordingError(f"{manifest_path}: field sessions: a complete recording needs at least one session")

    files = _read_session_files(path, manifest)
    sessions = {s["id"]: s for s in manifest["sessions"]}
    # Every request entry of every session file, with the round of the call it comes before.
    entries: dict[tuple[str, str], dict] = {}
    rounds: dict[str, int] = {}  # compaction entry id -> round of the first call after it
    for file, session in files.items():
        for line, entry in enumerate(session.entries, start=1):
            if is_request(entry):
                _check_call(entry, f"{path / file}:{line}")
                entries[file, entry["id"]] = entry
            if entry["type"] == "compaction" and "request" in entry:
                rounds[entry["id"]] = _round_after(session.entries, line - 1)

    calls, placed, on_path = [], {}, {}
    for seq, item in enumerate(manifest["order"]):
        where = f"{manifest_path}: order[{seq}]"
        if item["session"] not in sessions:
            raise RecordingError(f"{where}: field session: unknown session {item['session']!r}")
        info = sessions[item["session"]]
        if (info["file"], item["call"]) not in entries:
            raise RecordingError(f"{where}: field call: no model_call entry {item['call']!r} "
                                 f"(nor a compaction entry with a summary request) in {info['file']}")
        if item["call"] in placed:
            raise RecordingError(f"{where}: field call: {item['call']!r} is already order[{placed[item['call']]}] "
                                 "(the server received each request once)")
        placed[item["call"]] = seq
        if ("launched" in item) != ("done" in item):
            raise RecordingError(f"{where}: fields launched and done go together (the server's times of one request)")
        if "done" in item and item["done"] < item["launched"]:
            raise RecordingError(f"{where}: field done: {item['done']} is before the request was launched ({item['launched']})")
        if info["id"] not in on_path:
            on_path[info["id"]] = {e["id"] for e in files[info["file"]].path_to(info["leaf"])}
        if item["call"] not in on_path[info["id"]]:
            raise RecordingError(f"{where}: field call: entry {item['call']!r} is in {info['file']} but not on "
                                 f"session {info['id']!r}'s path (from the root to its leaf {info['leaf']!r})")
        entry = entries[info["file"], item["call"]]
        calls.append(Call(seq, item["session"], entry.get("round", rounds.get(entry["id"], 0)), item["epoch"],
                          item["t"], item["call"], entry["request"], entry.get("response"), entry["type"],
                          entry.get("error"), item.get("launched"), item.get("done")))
    return Recording(path, manifest, calls, files)


def _read_manifest(path: Path) -> dict:
    """manifest.json of the recording directory ``path``: UTF-8, JSON, the schema, the provenance."""
    manifest_path = path / "manifest.json"
    if not path.exists():
        raise RecordingError(f"{path}: not a recording (no manifest.json: the directory does not exist)")
    if not path.is_dir():
        raise RecordingError(f"{path}: is a file; give the recording itself, the directory that holds manifest.json")
    if not manifest_path.is_file():
        inside = sorted(p.parent.name for p in path.glob("*/manifest.json"))
        hint = f"; the recordings in it are {', '.join(inside)}: give one of those" if inside else ""
        raise RecordingError(f"{path}: not a recording (no manifest.json){hint}")
    try:
        data = manifest_path.read_bytes()
    except OSError as err:
        raise RecordingError(f"{manifest_path}: cannot read it ({err.strerror})") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise RecordingError(f"{manifest_path}:{line}: not UTF-8 text (byte 0x{data[err.start]:02x} at byte "
                             f"{err.start}); a manifest is JSON written in UTF-8") from None
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as err:
        raise RecordingError(f"{manifest_path}:{err.lineno}: not valid JSON ({err.msg})") from None
    try:
        jsonschema.validate(manifest, _schema())
    except jsonschema.ValidationError as err:
        field_path = "/".join(str(p) for p in err.absolute_path) or "(top level)"
        raise RecordingError(f"{manifest_path}: field {field_path}: {err.message}") from None
    _check_provenance(manifest, str(manifest_path))
    return manifest


def _read_session_files(path: Path, manifest: dict) -> dict[str, Session]:
    """Every session file the manifest names, read once; each session's leaf must be one of its entries."""
    manifest_path = path / "manifest.json"
    first_use: dict[str, int] = {}  # session id -> index in sessions[]
    for i, info in enumerate(manifest["sessions"]):
        if info["id"] in first_use:
            raise RecordingError(f"{manifest_path}: sessions[{i}]: field id: session {info['id']!r} is listed twice "
                                 f"(first as sessions[{first_use[info['id']]}])")
        first_use[info["id"]] = i
    files: dict[str, Session] = {}
    for i, info in enumerate(manifest["sessions"]):
        file, where = info["file"], f"{manifest_path}: sessions[{i}] ({info['id']!r})"
        if file not in files:
            file_path = path / file
            if not file_path.exists():
                raise RecordingError(f"{where}: field file: {file} does not exist in {path}")
            if not file_path.is_file():
                raise RecordingError(f"{where}: field file: {file} in {path} is not a file")
            try:
                files[file] = ContinuedSession.open(file_path)
            except SessionFileError as err:
                raise RecordingError(str(err)) from None
            except OSError as err:
                raise RecordingError(f"{file_path}: cannot read session file ({err.strerror})") from None
            except TypeError:  # an id or parentId that cannot be a key (a list, an object)
                raise RecordingError(_bad_id(file_path)) from None
            if not files[file].entries:
                raise RecordingError(f"{where}: field file: {file} is empty (no session entries)")
            if files[file].dropped and manifest["status"] == "complete":
                raise RecordingError(f"{file_path}: {files[file].dropped}, but the manifest says complete")
            _check_entries(files[file], file_path)
        if info["leaf"] not in files[file].by_id:
            raise RecordingError(f"{where}: field leaf: no entry {info['leaf']!r} in {file}")
    return files


def _bad_id(file_path: Path) -> str:
    """The message for the first entry whose id or parentId is neither a string nor null."""
    for line, text in enumerate(file_path.read_bytes().split(b"\n"), start=1):
        try:
            entry = json.loads(text)
        except ValueError:
            continue
        for key in ("id", "parentId"):
            value = entry.get(key) if isinstance(entry, dict) else None
            if not isinstance(value, (str, type(None))):
                return f"{file_path}:{line}: field {key} should be a string, got {_json_type(value)}"
    return f"{file_path}: an entry's id or parentId is not a string"


def _check_entries(session: Session, file_path: Path) -> None:
    """Every entry has a type (and a whole-number round if any); no id is used twice."""
    lines: dict[str, int] = {}
    for line, entry in enumerate(session.entries, start=1):
        where = f"{file_path}:{line}"
        _field(entry, "id", (str,), "the entry's id", where)
        if entry["id"] in lines:
            raise RecordingError(f"{where}: field id: entry {entry['id']!r} is already on line {lines[entry['id']]}")
        lines[entry["id"]] = line
        _field(entry, "type", (str,), "the entry's kind, such as model_call or message", where)
        _field(entry, "round", (int,), "the round of the agent loop", where, required=False)


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
