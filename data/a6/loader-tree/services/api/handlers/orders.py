def list_orders(request):
    """GET /orders (see ../AGENTS.md)."""
    raise NotImplementedError
