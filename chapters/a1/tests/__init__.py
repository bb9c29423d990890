"""Chapter A1's tests: its recording, its recorder on a real server, its pages and exercises."""
