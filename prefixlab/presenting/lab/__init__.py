"""The prefix-cache calculator lab (labs/calculator.ipynb, labs/record-your-own.ipynb).

    lab = CalculatorLab()                                  # the default shipped recording
    state = lab.update(rule="anthropic", model="claude-sonnet-4-5", k=3)
    state.rows, state.break_info, state.cost, state.comparison, state.error
    lab.open("data/recordings/my-recording")               # any recording directory
    print(lab.report())                                    # the same state as plain text

    CalculatorApp(lab)                                     # the ipywidgets version (needs a kernel)

``state``    ``CalculatorLab``: the controls and what they produce, as plain data, so tests drive
             it without a browser
``render``   that state as text (what nbval compares), HTML panels and a plotly figure
``widgets``  ``CalculatorApp``, a thin ipywidgets layer that turns widget changes into ``update``
             calls and draws the state; ``run_module`` runs a course command from a notebook
``app``      ``WidgetApp``, the base of every lab app here and in ``chapters/<chapter>/lab/``, and the
             scroll-box text panel every app draws its text in
``own_machine``  record-your-own's long cells: nothing runs until the learner picks a server
``wording``  Chinese for the English lines library code writes (llama.cpp rule events, session tree)
"""
from .render import figure
from .state import DEFAULT_RECORDING, CalculatorLab, Controls, LabState, recording_note, resolve, shipped_recordings
from .widgets import CalculatorApp, run_module

__all__ = ["CalculatorApp", "CalculatorLab", "Controls", "DEFAULT_RECORDING", "LabState", "figure", "recording_note",
           "resolve", "run_module", "shipped_recordings"]
