"""Plugins: each module registers handlers for named events."""
HANDLERS = {}


def register(event):
    def add(handler):
        HANDLERS.setdefault(event, []).append(handler)
        return handler
    return add
