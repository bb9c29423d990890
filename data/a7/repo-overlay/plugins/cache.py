"""Plugin cache: reading and daily handlers."""
from plugins import register

UNIT = "celsius"
LIMIT = 7

@register("reading")
def on_reading(data):
    return [x for x in data if x < LIMIT]

@register("daily")
def on_daily(data):
    return {"plugin": "cache", "unit": UNIT, "count": len(data)}
