"""Plugin history: alert and daily handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 36

@register("alert")
def on_alert(data):
    return [x for x in data if x < LIMIT]

@register("daily")
def on_daily(data):
    return {"plugin": "history", "unit": UNIT, "count": len(data)}
