"""Chapter A2's data: every number file under data/a2/ is what its code computes today, and the map's
data queries answer."""
import json

import pytest

from chapters.a2 import four_ways, outputs_and_edits, tool_blocks
from chapters.a2.paths import FOUR_WAYS_SUMMARY, OUTPUTS_EDITS, TOOL_BLOCKS
from prefixlab.presenting.evolution import MapError, evaluate, load_map, map_path


@pytest.mark.parametrize("path, measure", [(TOOL_BLOCKS, tool_blocks.measure), (OUTPUTS_EDITS, outputs_and_edits.measure),
                                           (FOUR_WAYS_SUMMARY, four_ways.measure)],
                         ids=["tool-blocks", "outputs-edits", "four-ways"])
def test_the_data_file_is_current(path, measure):
    assert json.loads(path.read_text(encoding="utf-8")) == json.loads(json.dumps(measure())), \
        f"{path.name} is stale: run python -m {measure.__module__}"


def test_the_tool_block_sits_inside_the_system_turn_after_the_system_text():
    from chapters.a2.experiments.call_shapes import SYSTEM, four_definitions
    from miniagent.tools import Workspace
    from prefixlab.paths import TOY_REPO
    four = four_definitions(Workspace(TOY_REPO))
    for model in tool_blocks.MODELS:
        block = tool_blocks.tool_block(SYSTEM, four, model)
        prompt = tool_blocks.renderer(model).prompt(tool_blocks.first_request(SYSTEM, "TASK"), four)
        assert prompt.startswith("<|im_start|>system\n" + SYSTEM + block + "<|im_end|>")
        assert block.lstrip().startswith("# Tools") and all(d["function"]["name"] in block for d in four)


def test_the_live_renderer_counts_what_the_live_server_counted():
    """The a1-live recording's first request, rendered and counted offline, is its recorded prompt_tokens."""
    from chapters.a2.paths import LIVE_RECORDING
    from prefixlab.recording.format import load
    rec = load(LIVE_RECORDING)
    call = rec.calls[0]
    r = tool_blocks.renderer("live")
    assert r.tokens(call.request["messages"], call.request.get("tools")) == call.prompt_tokens


def test_every_map_query_answers():
    for stage in load_map(map_path("a2")).stages:
        for ev in stage.evidence:
            assert isinstance(evaluate(ev.query), (int, float)), ev.name


def test_a_bad_data_query_says_what_is_wrong():
    with pytest.raises(MapError, match="no key 'nope.x'"):
        evaluate({"data": "a2/tool-blocks.json", "key": "nope.x"})
    with pytest.raises(MapError, match="no data file"):
        evaluate({"data": "a2/missing.json", "key": "x"})
    with pytest.raises(MapError, match="not a number or a word"):
        evaluate({"data": "a2/tool-blocks.json", "key": "a2_1"})
    with pytest.raises(MapError, match="only 'data' and 'key'"):
        evaluate({"data": "a2/tool-blocks.json", "key": "a2_1.system_tokens", "at": "first"})


def test_unknown_tool_set_and_model_are_refused():
    with pytest.raises(ValueError, match="unknown tool set 'ten'"):
        tool_blocks.tool_set("ten")
    with pytest.raises(ValueError, match="unknown model 'big'"):
        tool_blocks.renderer("big")


@pytest.mark.parametrize("k, n, low, high", [(0, 5, 0.0, 0.434), (5, 5, 0.566, 1.0), (4, 5, 0.376, 0.964), (15, 30, 0.332, 0.668)])
def test_wilson_interval(k, n, low, high):
    got = four_ways.wilson(k, n)
    assert got == pytest.approx((low, high), abs=1e-3)


@pytest.mark.parametrize("k, n", [(1, 0), (-1, 5), (6, 5)])
def test_wilson_refuses_impossible_counts(k, n):
    with pytest.raises(ValueError):
        four_ways.wilson(k, n)
