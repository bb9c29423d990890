"""The hidden check of task space-before-unit: the agent never sees this file (it is not in the workspace)."""


def test_space_c():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("21.5 C") == (21.5, "C")


def test_space_f():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("70 F") == (70.0, "F")


def test_parse_plain():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("21.5C") == (21.5, "C")


def test_parse_negative():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("-3.5C") == (-3.5, "C")
