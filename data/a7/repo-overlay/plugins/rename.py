"""Plugin rename: reading and alert handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 32

@register("reading")
def on_reading(data):
    return [x for x in data if x < LIMIT]

@register("alert")
def on_alert(data):
    return {"plugin": "rename", "unit": UNIT, "count": len(data)}
