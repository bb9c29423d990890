"""Chapter A1's exercise checkers, one module per lesson; answers come from the recording, never stored.

``a1_1``   A1·1: messages in a round's request, how much the last round adds
``a1_2``   A1·2: what a round reads from the cache, what the server evaluated over the first rounds
``a1_3``   A1·3: where the token budget stops the runaway run, which of two limits comes first
``a1_l``   A1·L: how many rounds of the live run were cut off at the generation limit
"""
