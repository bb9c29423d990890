"""The hidden check of task missing-return: the agent never sees this file (it is not in the workspace)."""


def test_parse_plain():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("21.5C") == (21.5, "C")


def test_parse_fahrenheit():
    from units.convert import parse_temperature, to_celsius
    assert parse_temperature("70F") == (70.0, "F")


def test_celsius_unchanged():
    from units.convert import parse_temperature, to_celsius
    assert to_celsius((21.5, "C")) == 21.5


def test_rejects_words():
    from units.convert import parse_temperature, to_celsius
    try:
        parse_temperature("warm")
    except ValueError:
        return
    raise AssertionError("no ValueError for 'warm'")
