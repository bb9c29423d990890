"""Name, in a shipped recording's provenance, the miniagent source that reproduces it.

    python scripts/stamp_agent_source.py data/recordings/*/

Recordings made before provenance named their miniagent get ``provenance.agent``: the hash of the
miniagent imported here (``prefixlab.recording.agent_source``) and a note saying it was added
afterwards. Only ``provenance`` changes; the sessions (requests, responses) are not touched.

Run it only right after ``python -m pytest tests/test_replay.py`` passed on this same code: that
test is what proves this miniagent sends every recorded request byte for byte.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from prefixlab.recording.agent_source import agent_provenance
from prefixlab.recording.format import write_manifest


def stamp(recording: Path, agent: dict, day: str) -> bool:
    """Add or replace ``provenance.agent``; False if it already names this source."""
    path = recording / "manifest.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    old = manifest["provenance"].get("agent", {})
    if old.get("source_sha256") == agent["source_sha256"]:
        return False
    manifest["provenance"]["agent"] = {**agent, "note": (
        f"added {day}, after the recording: the miniagent source that reproduces every request of it "
        "byte for byte (tests/test_replay.py)")}
    write_manifest(recording, manifest)
    return True


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("recordings", nargs="+", type=Path, help="recording directories (with manifest.json)")
    args = p.parse_args(argv)
    agent, day = agent_provenance(), time.strftime("%Y-%m-%d", time.gmtime())
    for recording in args.recordings:
        if not (recording / "manifest.json").is_file():
            p.error(f"{recording}: not a recording (no manifest.json)")
    for recording in args.recordings:
        changed = stamp(recording, agent, day)
        print(f"{recording}: {'stamped' if changed else 'already names'} miniagent {agent['source_sha256'][:12]}…")
    return 0


if __name__ == "__main__":
    sys.exit(main())
