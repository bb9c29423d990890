"""The course's chapters: one package per chapter (its lesson code, experiments and tests)."""
