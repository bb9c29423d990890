"""Plugin calendar: shutdown and alert handlers."""
from plugins import register

UNIT = "celsius"
LIMIT = 17

@register("shutdown")
def on_shutdown(data):
    return [x for x in data if x < LIMIT]

@register("alert")
def on_alert(data):
    return {"plugin": "calendar", "unit": UNIT, "count": len(data)}
