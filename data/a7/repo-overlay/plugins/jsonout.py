"""Plugin jsonout: shutdown and export handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 17

@register("shutdown")
def on_shutdown(data):
    return [x for x in data if x < LIMIT]

@register("export")
def on_export(data):
    return {"plugin": "jsonout", "unit": UNIT, "count": len(data)}
