"""Chapter A2's lab apps (labs/a2/).

``tool_block``  choose tools, see the block the template writes for them, its tokens and its cloud cost
"""
