"""miniagent: the small coding agent of the course 从0打造编码Agent.

Read the modules in this order: prompt, memory, session, tools, model, loop.
"""
from .loop import run_task, sync_system_prompt
from .memory import MEMORY_CHAR_LIMIT, MemoryStore, NoteRefused, SystemPromptProvider
from .model import ChatModel, ModelError, ModelReply
from .prompt import BASE_PROMPT, SystemPrompt, read_agents_md
from .session import Session, SessionFileError
from .tools import Toolbox, ToolError, Workspace

__version__ = "0.1.0"
