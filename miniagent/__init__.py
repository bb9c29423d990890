"""miniagent: the small coding agent of the course 从0打造编码Agent.

Concept map, in reading order by chapter (module: idea -> the names to look at). A chapter
adds at the loop's edge: a step run before each model call, or a tool; the loop stays as A1
wrote it.

A1 the loop
  loop.py            ask the model, run the tools it asks for, append their results,
                     repeat until an answer without tool calls; steps run before each
                     call -> run_task, Step
  system_message.py  the session's system message; a plain agent's one fixed system
                     prompt -> FixedPrompt, sync_system_prompt
  model.py           any OpenAI-compatible server, keeping the exact request and the raw
                     response -> ChatModel
  text_calls.py      opt-in (ChatModel(text_calls=True), --text-calls): tool calls a small
                     model writes as text in its answer become tool_calls (A2·1's
                     subject) -> lift_text_calls
  tools.py           tools confined to one workspace, each definition on its handler,
                     arguments checked before a handler runs -> Workspace, Toolbox
  session.py         the conversation as an append-only tree of entries in a file (its
                     forks are A6·4's) -> Session

A2 tools
  call_retry.py      A2·1, opt-in (--call-retries N): an answer that tried to call a tool
                     but could not be read goes back with a correction, as the next user
                     message, at most N times -> run_with_retry, tried_to_call
  paging.py          opt-in (with_paging): a big file or command output comes back one
                     page at a time, with where the rest is; a long command output is
                     saved whole in the workspace to page through -> with_paging, Pager
  edit_guard.py      opt-in (with_edit_guard): edit_file and write_file refuse a file
                     the model has not read as it is now; failed edits say how to fix
                     the call -> with_edit_guard, EditGuard
  mcp_tools.py       A2·4, opt-in (--mcp COMMAND): an MCP server started on stdio, its
                     tools listed and added after miniagent's own; tools/list_changed
                     changes the next request's tool block -> add_mcp, MCPServer

A3 the workspace
  tools.py           (again) paths checked before any file is touched; a command in its
                     own process group, killed whole at the timeout with whatever left
                     the group, its output capped while read, secrets kept out of its
                     environment -> Workspace.resolve, Workspace.run_command, command_env
  sandbox.py         opt-in (--sandbox bwrap): each command inside bubblewrap: workspace
                     writable, the rest read-only, no network, its own /proc, a cleared
                     environment (the agent's key out of reach) -> Bwrap
  approval.py        A3·2: ask / auto / never and an allow-list decide whether a call that
                     changes something runs; a refusal is the call's result -> Approval

A5 compaction
  compaction.py      a step: past a token budget, one summary message replaces the older
                     rounds; the session file keeps them -> Compactor, estimate_tokens,
                     model_summariser
  masking.py         A5·2: a step: tool results older than the last rounds are cut to
                     their first line; the session file keeps them -> ToolResultMasking

A6 memory and sessions
  prompt.py          the system prompt: base prompt, AGENTS.md, memory (and the skills
                     index), in a fixed order -> SystemPrompt, BASE_PROMPT
  agents_md.py       A6·1: the AGENTS.md files from the repository root down to the
                     workspace, root first, under a byte cap -> read_agents_md
  memory.py          A6·2: notes the agent writes itself (the remember tool), on disk at
                     once -> MemoryStore
  injection.py       A6·2: a step: where the requests carry the memory and when a new note
                     gets there; miniagent's design, frozen -> MemoryInjection, Frozen
  modes.py           the designs by name, as --mode and the recordings call them
                     -> for_mode, MODES
  skills.py          A6·3: a folder of SKILL.md files: an index in the system prompt, the
                     body read on demand (the read_skill tool) -> SkillSet
  session_cli.py     A6·4: ``python -m miniagent session``: the tree of a session file,
                     resume a leaf, fork from any entry, clone a path -> main
  retriever.py       A6·R: BM25 over the notes, for the two variants that send only the
                     notes a request matches -> Retriever

A7 sub-agents
  children.py        opt-in: the spawn_agent tool: a brief (goal, context, report shape)
                     runs a child loop, fresh or forked from the parent's conversation,
                     under depth and loop limits; its own session file, linked to the
                     parent's child entry; its usage in the parent's ledger; with
                     parallel=True the children of one message run at once (A7·4)
                     -> add_children, ChildLimits (python -m miniagent --children ROUNDS)

The command line
  cli.py             ``python -m miniagent TASK``: one task in one workspace; builds the
                     agent from the options -> main
  __main__.py        ``python -m miniagent``: a task, or ``session ...`` -> main

Lesson variants (variants/, outside the core: what a lesson measures next to the core)
  variants/volatile_line.py    A4·2: a time-and-files block at the top or the end of the
                               system prompt, or the date only
  variants/transcript.py       A4·3: the conversation re-rendered into one user
                               message every round, older entries clipped
  variants/memory_timing.py    A6·2: modes refresh, append, after-tools
  variants/select_memory.py    A6·R: mode select, the matching notes in the system prompt
  variants/retrieve_memory.py  A6·R: mode retrieve, the matching notes in the user message
  variants/inline_skills.py    A6·3: every skill's whole text in the system prompt

prefixlab/ (outside this package) measures what these requests do to a server's prompt
cache.
"""
from .agents_md import read_agents_md
from .compaction import Compactor, estimate_tokens, model_summariser
from .injection import Frozen, MemoryInjection, sync_messages
from .loop import Step, run_task
from .masking import ToolResultMasking
from .memory import MEMORY_CHAR_LIMIT, MemoryStore, NoteRefused
from .model import ChatModel, ModelError, ModelReply
from .modes import MODES, for_mode
from .prompt import BASE_PROMPT, SystemPrompt
from .session import Session, SessionFileError, UnknownEntry
from .skills import SkillFileError, SkillSet
from .system_message import FixedPrompt, sync_system_prompt
from .tools import Toolbox, ToolError, Workspace

__version__ = "0.1.0"
