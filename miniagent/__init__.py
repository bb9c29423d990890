"""miniagent: the small coding agent of the course 从0打造编码Agent.

Concept map, in reading order (module: idea -> the names to look at):

1. prompt.py   the system prompt: base prompt, AGENTS.md, memory, in that
               fixed order -> SystemPrompt, BASE_PROMPT, read_agents_md
2. memory.py   notes the agent writes itself, and when they reach the prompt
               (frozen or refresh) -> MemoryStore, SystemPromptProvider
3. session.py  the conversation as an append-only tree of entries; forking
               -> Session
4. tools.py    tools confined to one workspace, each definition on its handler,
               arguments checked before a handler runs -> Workspace, Toolbox
5. model.py    any OpenAI-compatible server, keeping the exact request and the
               raw response -> ChatModel
6. loop.py     ask the model, run the tools it asks for, repeat; refresh the
               system prompt before each call -> run_task, sync_system_prompt
7. cli.py      ``python -m miniagent``: one task in one workspace -> main

prefixlab/ (outside this package) measures what these requests do to a
server's prompt cache.
"""
from .loop import run_task, sync_system_prompt
from .memory import MEMORY_CHAR_LIMIT, MemoryStore, NoteRefused, SystemPromptProvider
from .model import ChatModel, ModelError, ModelReply
from .prompt import BASE_PROMPT, SystemPrompt, read_agents_md
from .session import Session, SessionFileError, UnknownEntry
from .tools import Toolbox, ToolError, Workspace

__version__ = "0.1.0"
