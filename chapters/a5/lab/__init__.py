"""Chapter A5's lab apps (labs/a5/): they run in JupyterLab without a server.

``compaction``  A5·1's task replayed offline under a trigger, window, reserve and kept rounds you choose
``layers``      A5·3's recorded summaries of one run, layer by layer: is the rule in each, does it reach the model
"""
