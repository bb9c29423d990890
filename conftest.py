import sys
from pathlib import Path

# Tests import their helpers (fake model, fake server) from tests/.
sys.path.insert(0, str(Path(__file__).parent / "tests"))


def pytest_configure(config):
    config.addinivalue_line("markers", "server: needs a real llama-server (set PREFIXLAB_REAL_SERVER=1)")
