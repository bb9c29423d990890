"""Chapter A2's exercise checkers, one module per lesson. A checker computes its answer from the
chapter's data (or a rendered prompt), never stores it, and prints it only once the reader's answer is right.

``a2_1``  A2·1: the tool block's tokens; what the retry of a malformed call costs
``a2_2``  A2·2: the block's share over twenty rounds; its cost when cached
``a2_3``  A2·3: pages until a line in the middle, and their tokens
``a2_4``  A2·4: the MCP tools' tokens; what is read after the list changed; which server goes last
``a2_5``  A2·5: why required still lets prose through; what the second request reads; what is left without a final-answer choice
"""
