"""Chapter A1 一个循环: the code only its lessons use (pages: book/a1/, data: data/a1/).

``agent``       the agent A1 builds: miniagent's loop, four of its tools, a plain system prompt
``experiments`` the lessons' recorded experiments: ``loop`` (A1·1–A1·3, registered as ``a1``: one task as a
                single chat request, as a loop, as twenty rounds with the cache on and off, and a policy
                that never stops, run against two limits) and ``live_run`` (the live model drives miniagent's loop
                on the A1 task, registered as ``a1-live``; page book/a1/a1-l-live-model)
``figures``     what the lessons draw from the recording: ``loop`` (tokens per round, the cumulative sum and its fit)
``exercises``   the exercise checkers, one module per lesson: ``a1_1``, ``a1_2``, ``a1_3``
``lab``         the lab's helpers (labs/a1/build-the-loop.ipynb): a server if one runs, else the recording
``paths``       where the chapter's data is (data/a1/: the script of the scripted policy)
``tests``       the chapter's tests (its recording, its recorder on a real server, its pages and exercises)
"""
