"""Plugin share: daily and export handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 5

@register("daily")
def on_daily(data):
    return [x for x in data if x < LIMIT]

@register("export")
def on_export(data):
    return {"plugin": "share", "unit": UNIT, "count": len(data)}
