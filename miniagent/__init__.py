"""miniagent: the small coding agent of the course 从0打造编码Agent.

Read it by chapter: ``CHAPTERS`` (next to this file) lists every module with the chapter that
brings it and one line on what it does; the README shows the same table. Importing a module
loads only what that module imports, so an A1 reader's agent is A1's files alone.
"""
__version__ = "0.1.0"
