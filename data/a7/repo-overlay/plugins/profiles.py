"""Plugin profiles: alert and startup handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 24

@register("alert")
def on_alert(data):
    return [x for x in data if x < LIMIT]

@register("startup")
def on_startup(data):
    return {"plugin": "profiles", "unit": UNIT, "count": len(data)}
