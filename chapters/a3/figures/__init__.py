"""What chapter A3's lessons draw from their measurements.

``escapes``  A3·1: time until the call returned and output kept, per command case and way
"""
