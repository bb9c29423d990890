"""Where chapter A9's data is: the task set (data/a9/tasks/) and the shipped evaluation."""
from prefixlab.eval.tasks import TASKS  # noqa: F401 (the chapter's task set)
from prefixlab.paths import RECORDINGS

EVAL = RECORDINGS / "a9-eval-qwen2.5-coder-0.5b-llamacpp"   # the live model, two designs, the oracle
