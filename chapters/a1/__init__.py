"""Chapter A1 一个循环: the code only its lessons use (data: data/a1/).

``experiments`` the lessons' recorded experiments (``python -m prefixlab record NAME``): ``live_run``
                (the live model drives miniagent's loop on the A1 task), registered as ``a1-live``
``tests``       the chapter's tests
"""
