"""Plugin csvout: reading and export handlers."""
from plugins import register

UNIT = "celsius"
LIMIT = 16

@register("reading")
def on_reading(data):
    return [x for x in data if x < LIMIT]

@register("export")
def on_export(data):
    return {"plugin": "csvout", "unit": UNIT, "count": len(data)}
