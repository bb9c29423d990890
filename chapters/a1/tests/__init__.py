"""Chapter A1's tests."""
