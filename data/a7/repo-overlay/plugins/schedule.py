"""Plugin schedule: alert and shutdown handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 26

@register("alert")
def on_alert(data):
    return [x for x in data if x < LIMIT]

@register("shutdown")
def on_shutdown(data):
    return {"plugin": "schedule", "unit": UNIT, "count": len(data)}
