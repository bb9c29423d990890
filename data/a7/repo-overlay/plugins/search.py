"""Plugin search: startup and reading handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 24

@register("startup")
def on_startup(data):
    return [x for x in data if x < LIMIT]

@register("reading")
def on_reading(data):
    return {"plugin": "search", "unit": UNIT, "count": len(data)}
