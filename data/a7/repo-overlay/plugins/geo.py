"""Plugin geo: alert and reading handlers."""
from plugins import register

UNIT = "kelvin"
LIMIT = 5

@register("alert")
def on_alert(data):
    return [x for x in data if x < LIMIT]

@register("reading")
def on_reading(data):
    return {"plugin": "geo", "unit": UNIT, "count": len(data)}
