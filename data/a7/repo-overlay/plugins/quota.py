"""Plugin quota: alert and shutdown handlers."""
from plugins import register

UNIT = "kelvin"
LIMIT = 31

@register("alert")
def on_alert(data):
    return [x for x in data if x < LIMIT]

@register("shutdown")
def on_shutdown(data):
    return {"plugin": "quota", "unit": UNIT, "count": len(data)}
