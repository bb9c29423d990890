"""Chapter A6, memory and sessions: its experiments (``experiments/``), its data paths (``paths``) and tests."""
