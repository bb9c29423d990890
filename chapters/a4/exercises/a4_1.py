"""Checker functions for lesson A4·1's exercises. Each returns a short Chinese verdict.

Every exercise asks for a number the page does not show: the answer is computed from the
recording (never stored) and printed only once the reader's answer is right. A checker never
raises on a wrong or missing answer: it says what to think about next, without the number.

    check_restore(rec, p, guess)        # exercises 1 and 2: the unchanged prompt sent right after the probe at p
    check_resend(rec, "anthropic", guess)  # exercise 3: the identical resend under a cloud rule
"""
from __future__ import annotations

from prefixlab.cache import calculator

from prefixlab.presenting.answers import ask, is_int, more_or_less

RULE_LABELS = {"llamacpp": "llama.cpp(录制用的服务器)", "anthropic": "Anthropic(Claude Opus 5,只开自动缓存)",
               "openai": "OpenAI"}
RULE_SETTINGS = {"anthropic": {"model": "claude-opus-5"}}  # the lesson's figure uses the same model


def probe_positions(recording) -> list[int]:
    """The positions p of the sweep, in the order they were sent."""
    return [c["position"] for c in recording.manifest["sweep"]["changes"]]


def _row(recording, session: str, rule: str = "llamacpp"):
    rows = calculator.analyze(recording, rule, sessions=session, **RULE_SETTINGS.get(rule, {}))
    return next(r for r in rows if r.session == session)


def check_restore(recording, p: int, guess) -> str:
    """The unchanged prompt, sent right after the probe that changed the token at ``p``: what it read."""
    if p not in probe_positions(recording):
        return f"p = {p} 不是这次扫描用过的位置;可选的位置:{probe_positions(recording)}"
    if not is_int(guess):
        return ask(guess)
    row = _row(recording, f"restore-p{p:04d}")
    n = recording.manifest["sweep"]["prompt_tokens"]
    if row.measured != guess:
        hint = ("想一想:探针之后,槽位里留下的是哪一份 prompt?它和原样的 prompt 从哪里开始不同?"
                if guess != p or row.measured == p else
                "槽位里留下的确实是改过的那份;可服务器除了槽位,还有没有别处存着原样的 prompt?"
                "(提示:启动参数里的 --cache-ram)")
        return f"不对,{more_or_less(guess, row.measured)}。{hint}"
    if row.measured == p:
        why = (f"探针把槽位换成了改过的 prompt,它和原样的 prompt 只有前 {p:,} 个 token 相同,"
               f"所以读取 {p:,} 个,其余 {n - p:,} 个重算。")
    else:
        why = (f"槽位里是改过的 prompt(只有前 {p:,} 个 token 相同),可这次打断得太早:"
               "服务器在换掉槽位之前,把原来那份 prompt 存进了主机缓存(--cache-ram),"
               f"这一次又把它整份取了回来,于是读取 {row.measured:,} 个——和原样重发一样,只差最后一个 token。"
               "主机缓存在 A6·4 细讲。")
    return f"对:{row.measured:,}。{why}"


def check_resend(recording, rule: str, guess) -> str:
    """The identical resend (session ``base-2``) under ``rule``: what that cache would read."""
    if rule not in RULE_LABELS:
        return f"规则只能是 {', '.join(RULE_LABELS)} 之一,收到 {rule!r}"
    if not is_int(guess):
        return ask(guess)
    row = _row(recording, "base-2", rule)
    if row.read != guess:
        hint = {"openai": "OpenAI 从 1,024 个 token 起,按 128 个一档往下取整;最后一个 token 它也要重算吗?",
                "anthropic": "Anthropic 只在缓存断点所在的块上写、读条目;只开自动缓存时断点在最后一块。"
                             "最后一块之后,请求里还有没有 token?",
                "llamacpp": "想想 n−1 上限。"}[rule]
        return f"不对,{more_or_less(guess, row.read)}。{hint}"
    why = {"anthropic": (f"条目写在最后一块(任务那条 user 消息)上,读取的就是到这一块为止的 {row.read:,} 个;"
                          f"其后的 {row.prompt_tokens - row.read:,} 个是我们的聊天模板在消息之后补上的 token,Anthropic 的块里没有它们。"),
           "openai": "从起点起按档往下取整。", "llamacpp": "只差最后一个 token。"}[rule]
    return (f"对:{RULE_LABELS[rule]} 的规则下,这次原样重发读取 {row.read:,} 个 token"
            f"(prompt 共 {row.prompt_tokens:,} 个)。{why}")
