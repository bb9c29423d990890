"""The helpers of chapter A1's lab (labs/a1/).

``build_the_loop``   a model to talk to (the course server, or the recording when none runs), a fresh
                     workspace with the four tools, and the checker of the reader's loop
"""
