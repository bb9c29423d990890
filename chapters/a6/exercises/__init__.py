"""Chapter A6's exercise checkers, one module per lesson; each returns a short Chinese verdict.

``a6_1``   A6·1 where a human rule lives (instruction files)
``a6_2``   A6·2 when the agent's own notes enter the prompt (memory timing)
``a6_3``   A6·3 dozens of skills: inline or an index
``a6_4``   A6·4 the session is a tree
``a6_r``   A6·R memory file or retrieval
``tolerance``  how close a predicted token count must be (the 5-token tolerance each question states)
"""
