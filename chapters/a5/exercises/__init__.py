"""Chapter A5's exercise checkers, one module per lesson. A checker computes its answer from a
recording (or a cited constant), never stores it, and prints it only once the reader's answer is right.

``a5_1``  A5·1: what the request after a refusal reads; where pi and Codex start compacting
``a5_2``  A5·2: a placeholder on ``--cache-reuse 256``; the masked request under OpenAI's rule
``a5_3``  A5·3: the rule's tokens in a summary request; structured summaries cut at max_tokens
``a5_4``  A5·4: the first request after a compaction; the separate summary call under Anthropic's rule
"""
