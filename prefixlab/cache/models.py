"""Model names the way the price tables and the cache rules key them."""


def normalize_model(name: str, provider: str | None = None) -> str:
    """'Claude Haiku 4.5' / 'claude-haiku-4.5' -> 'claude-haiku-4-5'; 'GPT-5.4' -> 'gpt-5-4'.

    With ``provider="anthropic"`` a name without the family ('haiku-4.5') gets the 'claude-' prefix
    every Anthropic key has.
    """
    key = "-".join(str(name).strip().lower().replace(".", "-").split())
    if provider == "anthropic" and not key.startswith("claude-"):
        key = "claude-" + key
    return key
