"""Plugin dedupe: reading and daily handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 28

@register("reading")
def on_reading(data):
    return [x for x in data if x < LIMIT]

@register("daily")
def on_daily(data):
    return {"plugin": "dedupe", "unit": UNIT, "count": len(data)}
