"""Plugin pdfout: shutdown and export handlers."""
from plugins import register

UNIT = "celsius"
LIMIT = 6

@register("shutdown")
def on_shutdown(data):
    return [x for x in data if x < LIMIT]

@register("export")
def on_export(data):
    return {"plugin": "pdfout", "unit": UNIT, "count": len(data)}
