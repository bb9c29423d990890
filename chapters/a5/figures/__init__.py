"""What chapter A5's lessons draw and compute from their recordings (plotly figures work without a kernel).

``triggers``      A5·1: the size of every request under each compaction trigger, against the window
``masking``       A5·2: tokens sent and recomputed with old tool outputs cut, on our server and priced for the cloud
``layers``        A5·3: does the rule survive 1, 2, 3 compactions, per summary request and fix
``summary_call``  A5·4: what each summary call read from the cache, sent without tools or as the agent's prefix
``provenance``    the 口径 note of a figure: recording, model, server flags, tokenizer, template, date
"""
