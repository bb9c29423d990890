"""What chapter A4's lessons draw and compute from their recordings.

``one_token``     A4·1: one token changed at position p, read back under each cache rule
``volatile_top``  A4·2: an environment block at the top, at the end, or the date only, round by round
``rewrite_history`` A4·3: an append-only message list or a transcript re-rendered every round; the census
                  of one request by component
"""
