"""The hidden check of task celsius-passthrough: the agent never sees this file (it is not in the workspace)."""


def test_celsius_unchanged():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius((21.5, "C")) == 21.5


def test_celsius_parsed():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius(parse_temperature("-3.5C")) == -3.5


def test_boiling_point():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius((212.0, "F")) == 100.0


def test_parse_plain():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("21.5C") == (21.5, "C")
