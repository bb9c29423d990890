"""Plugin email: alert and daily handlers."""
from plugins import register

UNIT = "celsius"
LIMIT = 39

@register("alert")
def on_alert(data):
    return [x for x in data if x < LIMIT]

@register("daily")
def on_daily(data):
    return {"plugin": "email", "unit": UNIT, "count": len(data)}
