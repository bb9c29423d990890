"""Run a hidden check on a workspace, in its own Python process: ``python check_runner.py CHECK WORKSPACE``.

Standard library only (it runs with whatever Python the harness names). It imports CHECK by path, with
WORKSPACE first on ``sys.path`` and as the working directory, calls every ``test_<name>`` function, and
prints one line ``RESULT {json}``: each name -> ``"pass"`` or ``"fail: <exception>"``. A check that
cannot be imported exits 2 without that line: the harness reports it as a crashed check.
"""
import importlib.util
import json
import os
import sys


def main(check: str, workspace: str) -> int:
    sys.path.insert(0, workspace)
    os.chdir(workspace)
    spec = importlib.util.spec_from_file_location("hidden_check", check)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # an error here is a crash of the check itself
    results = {}
    for name in sorted(n for n in vars(module) if n.startswith("test_")):
        try:
            getattr(module, name)()
            results[name[len("test_"):]] = "pass"
        except BaseException as err:  # noqa: BLE001 -- a failing test, whatever it raised
            if isinstance(err, KeyboardInterrupt):
                raise
            results[name[len("test_"):]] = f"fail: {type(err).__name__}: {err}"[:300]
    print("RESULT " + json.dumps(results, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
