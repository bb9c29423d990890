"""Chapter A6's tests (pytest collects them; conftest.py puts tests/ on sys.path for the shared helpers)."""
