"""Placeholder; the layout branch brings the real one."""
