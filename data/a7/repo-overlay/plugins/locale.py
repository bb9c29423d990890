"""Plugin locale: startup and shutdown handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 30

@register("startup")
def on_startup(data):
    return [x for x in data if x < LIMIT]

@register("shutdown")
def on_shutdown(data):
    return {"plugin": "locale", "unit": UNIT, "count": len(data)}
