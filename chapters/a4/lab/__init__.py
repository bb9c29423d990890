"""Chapter A4's labs.

``prefix_cache``  labs/a4/prefix-cache.ipynb: one change to a prompt under every cache rule"""
