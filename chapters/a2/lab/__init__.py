"""Chapter A2's lab helpers (labs/a2/).
"""
