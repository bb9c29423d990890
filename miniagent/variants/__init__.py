"""Lesson variants: designs a lesson measures, kept outside the agent's core.

miniagent's core (the package above) is what the agent does by default. A lesson often
measures a naive or rival design next to it; those designs live here, one module per lesson,
so the recordings can be made again and a learner can run them (the CLI's ``--mode``):

- memory_timing.py    A6·2: modes ``refresh``, ``append`` and ``after-tools``, the places and
                      times for the memory measured against the core's ``frozen``
- select_memory.py    A6·R: mode ``select``, the notes a request matches in the system prompt
- retrieve_memory.py  A6·R: mode ``retrieve``, the notes a request matches in its user message
- inline_skills.py    A6·3: every skill's whole text in the system prompt, the naive design
                      the skills index replaces
- volatile_line.py    A4·2: a time-and-files block at the top or the end of the system prompt,
                      or the date only, rebuilt before every call
- transcript.py       A4·3: the conversation re-rendered into one user message every round,
                      older entries clipped (a model wrapper, not a step)

A variant imports the core; the core's modules never import a variant, except modes.py,
which names every design for ``--mode``. Recorders import the variant they record.
"""
