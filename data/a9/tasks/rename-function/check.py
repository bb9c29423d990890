"""The hidden check of task rename-function: the agent never sees this file (it is not in the workspace)."""


def test_to_celsius_exists():
    import units.convert as convert
    assert convert.to_celsius((212.0, "F")) == 100.0


def test_celsius_unchanged():
    import units.convert as convert
    assert convert.to_celsius((21.5, "C")) == 21.5


def test_parse_plain():
    import units.convert as convert
    assert convert.parse_temperature("21.5C") == (21.5, "C")


def test_parse_negative():
    import units.convert as convert
    assert convert.parse_temperature("-3.5C") == (-3.5, "C")
