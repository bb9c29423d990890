"""``python -m prefixlab verify`` says what it compares: token counts for recordings, ids for the chat corpus."""
import json

from prefixlab.paths import RECORDINGS
from prefixlab.recording import verify

LIVE = RECORDINGS / "a1-live-qwen2.5-coder-0.5b-llamacpp"


def test_a_recording_holds_counts_and_the_output_says_so(capsys):
    assert verify.main([str(LIVE)]) == 0
    out = capsys.readouterr().out
    n = len(json.loads((LIVE / "manifest.json").read_text(encoding="utf-8"))["order"])
    assert f"{LIVE}: {n} requests, token counts compared (the recording holds no ids), 0 mismatches" in out
    assert "token ids compared" not in out  # no chat corpus when recordings are named
    # the recordings really hold no prompt ids: no request entry has a field naming ids
    for f in LIVE.glob("*.jsonl"):
        for line in f.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            fields = set(entry) | set(entry.get("response") or {}) | set((entry.get("response") or {}).get("usage", {}))
            assert not {k for k in fields if "ids" in k}, (f.name, entry.get("id"))


def _corpus_copy(tmp_path, change):
    data = json.loads(verify.CHAT_CORPUS.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "server-chat.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path, data


def test_the_chat_corpus_is_compared_id_by_id(tmp_path, capsys):
    path, data = _corpus_copy(tmp_path, lambda d: None)
    answered = sum("error" not in c for c in data["cases"])
    assert verify.main(["--chat-corpus", str(path), str(LIVE)]) == 0
    out = capsys.readouterr().out
    assert f"{path}: {answered} chat requests, token ids compared id by id, 0 mismatches" in out


def test_one_swapped_id_is_caught_though_the_count_is_the_same(tmp_path, capsys):
    def swap(d):
        case = next(c for c in d["cases"] if "error" not in c and len(c["prompt_ids"]) > 10)
        ids = case["prompt_ids"]
        ids[5], ids[6] = ids[6], ids[5]
        assert ids[5] != ids[6]
    path, data = _corpus_copy(tmp_path, swap)
    code = verify.main(["--chat-corpus", str(path), str(LIVE)])
    out = capsys.readouterr().out
    assert code == 1
    assert "first differing id at position 5" in out and "1 mismatches" in out


def test_a_corpus_from_another_template_is_refused(tmp_path, capsys):
    path, _ = _corpus_copy(tmp_path, lambda d: d["server"].__setitem__("chat_template_sha256", "0" * 64))
    code = verify.main(["--chat-corpus", str(path), str(LIVE)])
    captured = capsys.readouterr()
    assert code == 1
    assert "server.chat_template_sha256" in captured.err and "could not be checked" in captured.out
