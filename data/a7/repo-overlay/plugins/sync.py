"""Plugin sync: daily and startup handlers."""
from plugins import register

UNIT = "celsius"
LIMIT = 17

@register("daily")
def on_daily(data):
    return [x for x in data if x < LIMIT]

@register("startup")
def on_startup(data):
    return {"plugin": "sync", "unit": UNIT, "count": len(data)}
