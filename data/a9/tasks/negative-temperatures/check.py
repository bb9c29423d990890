"""The hidden check of task negative-temperatures: the agent never sees this file (it is not in the workspace)."""


def test_parse_negative():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("-3.5C") == (-3.5, "C")


def test_negative_fahrenheit():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius(parse_temperature("-40F")) == -40.0


def test_parse_plain():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("21.5C") == (21.5, "C")


def test_boiling_point():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius(parse_temperature("212F")) == 100.0
