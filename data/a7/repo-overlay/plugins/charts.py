"""Plugin charts: reading and shutdown handlers."""
from plugins import register

UNIT = "celsius"
LIMIT = 38

@register("reading")
def on_reading(data):
    return [x for x in data if x < LIMIT]

@register("shutdown")
def on_shutdown(data):
    return {"plugin": "charts", "unit": UNIT, "count": len(data)}
