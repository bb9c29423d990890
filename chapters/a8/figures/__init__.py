"""What chapter A8's lessons draw and compute from the shipped recordings (plotly figures work without a kernel).

``usage``       A8·1: every shipped recording booked both ways; what the naive sum counts twice
``ledger``      A8·2: a session's ledger split by what a tally of the context now sees and misses
``whole``       A8·3: the whole bill of one complete task (skills, memory, a compaction, a child), projected
``waterfall``   A8·3: the same task under five designs; what each chapter's fix saved (tokens, seconds, dollars)
``six``         A8·4: one recorded session billed under llama.cpp's measured cache and five providers' rules
``provenance``  the 口径 note of a figure built from many recordings
"""
