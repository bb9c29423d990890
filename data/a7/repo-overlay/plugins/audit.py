"""Plugin audit: startup and daily handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 5

@register("startup")
def on_startup(data):
    return [x for x in data if x < LIMIT]

@register("daily")
def on_daily(data):
    return {"plugin": "audit", "unit": UNIT, "count": len(data)}
