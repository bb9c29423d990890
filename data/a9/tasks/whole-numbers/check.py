"""The hidden check of task whole-numbers: the agent never sees this file (it is not in the workspace)."""


def test_whole_f():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("70F") == (70.0, "F")


def test_whole_c():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("5C") == (5.0, "C")


def test_parse_plain():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("21.5C") == (21.5, "C")


def test_parse_negative():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("-3.5C") == (-3.5, "C")
