"""Plugin metrics: startup and reading handlers."""
from plugins import register

UNIT = "celsius"
LIMIT = 34

@register("startup")
def on_startup(data):
    return [x for x in data if x < LIMIT]

@register("reading")
def on_reading(data):
    return {"plugin": "metrics", "unit": UNIT, "count": len(data)}
