"""Record A5·4: the summary call's own bill. Sent without tools, or as the agent's prefix.

    python -m prefixlab record a5-4 data/recordings/a5-4-summary-call-smollm2-llamacpp

The task, server and trigger of A5·1's ``reserve`` variant (``compaction_triggers``: a 4,096-token
context, one slot, compact within the reserve of the window). There, miniagent's summary call goes
out as it ships: the older messages and the summary request with no tools offered, so the chat
template renders the system turn without the tool definitions and the prompt differs from the
agent's last one right there. Here (variant ``same-prefix``) the same call offers the agent's
tools (``model_summariser(model, tools=...)``): the prompt starts exactly like the agent's last
request, up to the first kept round. Up to the first summary call the requests of both recordings
are the same; ``cached_tokens`` of the summary calls is what the lesson compares.
"""
from __future__ import annotations

from miniagent.compaction import model_summariser

from chapters.a5.experiments.compaction_triggers import SERVER_ARGS, TriggersRecorder

EXPERIMENT = "A5-4"


class SummaryCallRecorder(TriggersRecorder):
    """A5·4: the ``reserve`` trigger, its summary call offering the agent's tools."""

    experiment = EXPERIMENT
    variants = ("same-prefix",)
    server_args = tuple(SERVER_ARGS)

    def summariser(self, variant: str, summary_model, tools: list[dict]):
        if variant == "same-prefix":
            return model_summariser(summary_model, tools=tools), {"summary_call": "same_prefix"}
        return model_summariser(summary_model), {"summary_call": "separate"}

    def trigger(self, variant: str) -> str:
        return "reserve"  # both variants compact at the window less the reserve


RECORDER = SummaryCallRecorder  # the experiment's recorder (prefixlab.recording.experiments)
main, replay_recorder = RECORDER.main, RECORDER.replay_recorder


