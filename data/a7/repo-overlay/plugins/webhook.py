"""Plugin webhook: daily and shutdown handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 37

@register("daily")
def on_daily(data):
    return [x for x in data if x < LIMIT]

@register("shutdown")
def on_shutdown(data):
    return {"plugin": "webhook", "unit": UNIT, "count": len(data)}
