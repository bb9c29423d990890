"""Chapter A8's exercise checkers, one module per lesson. A checker computes its answer from a
recording (or from the usage object it asks about), never stores it, and prints it only once the
reader's answer is right.

``a8_1``  A8·1: a recording's Anthropic-style input_tokens; a Responses API usage normalized
``a8_2``  A8·2: what a tally of the context misses on a compacted day; on a fork's leaf
``a8_3``  A8·3: the tokens the budget run had used when it stopped
``a8_4``  A8·4: Qwen's reads under the older page's minimum; DeepSeek's reads with a unit every 256 tokens
"""
