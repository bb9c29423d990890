"""The hidden check of task rounding: the agent never sees this file (it is not in the workspace)."""


def test_rounded_100f():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius((100.0, "F")) == 37.78


def test_rounded_50f():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius((50.5, "F")) == 10.28


def test_boiling_point():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius((212.0, "F")) == 100.0


def test_celsius_unchanged():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius((21.5, "C")) == 21.5
