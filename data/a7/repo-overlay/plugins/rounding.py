"""Plugin rounding: reading and alert handlers."""
from plugins import register

UNIT = "kelvin"
LIMIT = 21

@register("reading")
def on_reading(data):
    return [x for x in data if x < LIMIT]

@register("alert")
def on_alert(data):
    return {"plugin": "rounding", "unit": UNIT, "count": len(data)}
