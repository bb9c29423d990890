"""What chapter A4's lessons draw and compute from their recordings.

``one_token``  A4·1: one token changed at position p, read back under each cache rule
"""
