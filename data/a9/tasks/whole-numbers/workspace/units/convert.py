"""Parse and convert temperatures written like '21.5C' or '70F'."""
import re

_PATTERN = re.compile(r"^\s*(-?\d+\.\d+)\s*([CF])\s*$", re.IGNORECASE)


def parse_temperature(text):
    """Return (value, unit) for a string such as '21.5C'; unit is 'C' or 'F'."""
    match = _PATTERN.match(text)
    if match is None:
        raise ValueError(f"not a temperature: {text!r}")
    return float(match.group(1)), match.group(2).upper()


def to_celsius(temperature):
    value, unit = temperature
    if unit == "C":
        return value
    return round((value - 32) * 5 / 9, 2)
