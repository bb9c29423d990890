"""The hidden check of task fahrenheit-formula: the agent never sees this file (it is not in the workspace)."""


def test_boiling_point():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius((212.0, "F")) == 100.0


def test_body_temperature():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius((98.6, "F")) == 37.0


def test_celsius_unchanged():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius((21.5, "C")) == 21.5


def test_parse_plain():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("21.5C") == (21.5, "C")
