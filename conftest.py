import os
import sys
from pathlib import Path

# Tests import their helpers (fake model, fake server) from tests/.
sys.path.insert(0, str(Path(__file__).parent / "tests"))

_shared_server = None


def pytest_configure(config):
    config.addinivalue_line("markers", "server: needs a real llama-server (set PREFIXLAB_REAL_SERVER=1)")
    # With PREFIXLAB_REAL_SERVER=1 and no server given, start one for the whole run
    # (building it first if needed), so tests that check against a live server can run.
    global _shared_server
    if os.environ.get("PREFIXLAB_REAL_SERVER") == "1" and not os.environ.get("PREFIXLAB_SERVER_URL"):
        from prefixlab.serving.server import LlamaServer, free_port

        _shared_server = LlamaServer(port=free_port()).start()
        os.environ["PREFIXLAB_SERVER_URL"] = _shared_server.url


def pytest_unconfigure(config):
    if _shared_server is not None:
        _shared_server.stop()
        os.environ.pop("PREFIXLAB_SERVER_URL", None)

# nbval: compare figures too (plotly JSON and HTML, minus plotly's template and generated ids).
from prefixlab.presenting.book.nbval_hooks import pytest_collectstart, pytest_itemcollected  # noqa: E402,F401
