"""Chapter A7's exercise checkers, one module per lesson; each returns a short Chinese verdict.

``a7_1``   A7·1 when to hand work to a child (explore alone or delegate)
``a7_2``   A7·2 a fresh or a forked child, and the parent's cache
``a7_3``   A7·3 a brief and limits (a runaway child, capped, a clear brief)
``a7_4_parallel``   A7·4 (parallel half): one slot's share of the context; the second parallel child's first hit
"""
