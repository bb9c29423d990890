"""Chapter A5's exercise checkers: one module per lesson. A checker computes its answer from a
recording (or a cited constant), never stores it, and prints it only once the reader's answer is right."""
