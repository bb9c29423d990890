"""The hidden check of task fahrenheit-return: the agent never sees this file (it is not in the workspace)."""


def test_boiling_c():
    from units.convert import parse_temperature, to_celsius, to_fahrenheit
    assert to_fahrenheit((100.0, "C")) == 212.0


def test_minus_forty():
    from units.convert import parse_temperature, to_celsius, to_fahrenheit
    assert to_fahrenheit((-40.0, "C")) == -40.0


def test_fahrenheit_unchanged():
    from units.convert import parse_temperature, to_celsius, to_fahrenheit
    assert to_fahrenheit((70.0, "F")) == 70.0


def test_boiling_point():
    from units.convert import parse_temperature, to_celsius, to_fahrenheit
    assert to_celsius((212.0, "F")) == 100.0
