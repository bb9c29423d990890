"""Plugin cleanup: reading and daily handlers."""
from plugins import register

UNIT = "kelvin"
LIMIT = 39

@register("reading")
def on_reading(data):
    return [x for x in data if x < LIMIT]

@register("daily")
def on_daily(data):
    return {"plugin": "cleanup", "unit": UNIT, "count": len(data)}
