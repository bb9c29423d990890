"""Plugin tags: shutdown and alert handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 7

@register("shutdown")
def on_shutdown(data):
    return [x for x in data if x < LIMIT]

@register("alert")
def on_alert(data):
    return {"plugin": "tags", "unit": UNIT, "count": len(data)}
