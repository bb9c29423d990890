"""Chapter A7's figures and per-request data, computed from its recordings (nothing typed in).

``delegation``  A7·1 and A7·2: a parent and its children request by request; what a child does to the parent's cache
``parallel``    A7·4 (parallel half): two children at once on -np 2; a child past its slot's share of -c
"""
