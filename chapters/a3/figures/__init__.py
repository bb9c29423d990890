"""What chapter A3's lessons draw from their measurements.

``escapes``   A3·1: time until the call returned and output kept, per command case and way
``approval``  A3·2: request by request, what a session read from the cache and what it recomputed
"""
