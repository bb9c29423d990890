"""The hidden check of task uppercase-unit: the agent never sees this file (it is not in the workspace)."""


def test_lowercase_f():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("70f") == (70.0, "F")


def test_lowercase_c():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("5c") == (5.0, "C")


def test_parse_plain():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("21.5C") == (21.5, "C")


def test_boiling_point():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius(parse_temperature("212F")) == 100.0
