"""Plugin labels: daily and alert handlers."""
from plugins import register

UNIT = "celsius"
LIMIT = 38

@register("daily")
def on_daily(data):
    return [x for x in data if x < LIMIT]

@register("alert")
def on_alert(data):
    return {"plugin": "labels", "unit": UNIT, "count": len(data)}
