"""Plugin notify: shutdown and daily handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 11

@register("shutdown")
def on_shutdown(data):
    return [x for x in data if x < LIMIT]

@register("daily")
def on_daily(data):
    return {"plugin": "notify", "unit": UNIT, "count": len(data)}
