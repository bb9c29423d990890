"""Plugin import_xml: shutdown and startup handlers."""
from plugins import register

UNIT = "fahrenheit"
LIMIT = 39

@register("shutdown")
def on_shutdown(data):
    return [x for x in data if x < LIMIT]

@register("startup")
def on_startup(data):
    return {"plugin": "import_xml", "unit": UNIT, "count": len(data)}
