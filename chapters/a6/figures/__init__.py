"""Chapter A6's figures and per-request data, computed from its recordings (nothing typed in).

``agents_md_explorer``  A6·1: which AGENTS.md files the loader reads, in what order, where the cap cuts
``rule_placement``      A6·1: every T11 request's make-up, where the rule is, where the prefix breaks
``swimlane``            A6·2: where the memory is at every request (on disk, system prompt, conversation)
``memory_timing``       A6·2: the swimlane figure and the prefix break per cache rule and k
``skills``              A6·3: what dozens of skills cost in the prompt, where a new one breaks the prefix
``session_tree``        A6·4: the session tree and branch switching under three server setups
``rewind``              A6·4: "go back n rounds" on a linear list versus on the tree
``strategies``          A6·R: three ways of getting memory into the requests, request by request
``recall``              A6·R: the recall test (which needed notes a request carries, at what cost)
"""
