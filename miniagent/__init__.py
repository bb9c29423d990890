"""miniagent: the small coding agent of the course 从0打造编码Agent.

Concept map, in reading order (module: idea -> the names to look at):

1. prompt.py     the system prompt: base prompt, AGENTS.md, memory, in that
                 fixed order -> SystemPrompt, BASE_PROMPT
2. agents_md.py  the AGENTS.md files from the repository root down to the
                 workspace, root first, under a byte cap -> read_agents_md
3. memory.py     notes the agent writes itself, on disk at once -> MemoryStore
4. injection.py  where the requests carry the memory and when a new note gets
                 there: one small class per --mode (frozen, refresh, append,
                 after-tools) -> MemoryInjection, for_mode
   retriever.py, select_memory.py, retrieve_memory.py: two designs that send
                 only the notes a request matches (BM25), in the system prompt
                 (select) or in that request's user message (retrieve)
                 -> Retriever, Select, Retrieve
5. session.py    the conversation as an append-only tree of entries; forking
                 -> Session
6. tools.py      tools confined to one workspace, each definition on its handler,
                 arguments checked before a handler runs -> Workspace, Toolbox
   skills.py     a folder of SKILL.md files: an index in the system prompt (stable
                 or volatile position), the body read on demand -> SkillSet
7. model.py      any OpenAI-compatible server, keeping the exact request and the
                 raw response -> ChatModel
8. compaction.py past a token budget, one summary message replaces the
                 older rounds; the session file keeps them -> Compactor,
                 estimate_tokens, model_summariser
9. loop.py       ask the model, run the tools it asks for, repeat; before each
                 call bring the system prompt and the memory messages up to date,
                 compact when over budget -> run_task, sync_system_prompt,
                 sync_messages
10. cli.py       ``python -m miniagent``: one task in one workspace -> main

prefixlab/ (outside this package) measures what these requests do to a
server's prompt cache.
"""
from .agents_md import read_agents_md
from .compaction import Compactor, estimate_tokens, model_summariser
from .injection import MODES, MemoryInjection, for_mode
from .loop import run_task, sync_messages, sync_system_prompt
from .memory import MEMORY_CHAR_LIMIT, MemoryStore, NoteRefused
from .model import ChatModel, ModelError, ModelReply
from .prompt import BASE_PROMPT, SystemPrompt
from .session import Session, SessionFileError, UnknownEntry
from .skills import SkillFileError, SkillSet
from .tools import Toolbox, ToolError, Workspace

__version__ = "0.1.0"
