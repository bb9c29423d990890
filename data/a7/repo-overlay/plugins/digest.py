"""Plugin digest: daily and reading handlers."""
from plugins import register

UNIT = "kelvin"
LIMIT = 21

@register("daily")
def on_daily(data):
    return [x for x in data if x < LIMIT]

@register("reading")
def on_reading(data):
    return {"plugin": "digest", "unit": UNIT, "count": len(data)}
