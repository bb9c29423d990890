"""A3·1's cases behave as the lesson says, and none leaves a process running."""
import pytest

from chapters.a3.escapes import COMMANDS, WAYS, path_attempts, run_case

TIMEOUT = 1.0


@pytest.fixture(scope="module")
def attempts():
    return {(a.case, a.way): a for a in path_attempts()}


@pytest.mark.parametrize("case", ["dotdot", "absolute", "symlink", "sibling"])
def test_a_plain_join_reads_outside_and_miniagent_refuses(attempts, case):
    assert attempts[case, "plain join"].outcome == "read outside"
    assert attempts[case, "miniagent"].outcome == "refused"


def test_a_string_prefix_check_lets_a_sibling_with_the_same_start_through(attempts):
    assert attempts["sibling", "string prefix"].outcome == "read outside"
    assert [c for c in ("dotdot", "absolute", "symlink") if attempts[c, "string prefix"].outcome != "refused"] == []


def test_a_nul_byte_crashes_the_naive_ways_and_is_a_message_for_miniagent(attempts):
    assert attempts["nul", "plain join"].outcome == "crashed"
    assert attempts["nul", "miniagent"].message.startswith("a path may not contain a NUL byte")


def test_no_refusal_names_the_machines_temporary_directory(attempts):
    assert all("<tmp>" not in a.message for a in attempts.values() if a.case != "absolute")


def test_the_naive_timeout_leaves_the_sleep_running():
    run = run_case("never_ends", "subprocess.run", TIMEOUT)
    assert run.survivors == 1 and run.seconds < TIMEOUT + 2


@pytest.mark.parametrize("way", ["group + drain", "miniagent"])
def test_a_killed_group_leaves_nothing(way):
    run = run_case("never_ends", way, TIMEOUT)
    assert run.survivors == 0 and run.seconds < TIMEOUT + 2


def test_the_printer_fills_the_naive_result_and_miniagent_keeps_a_capped_one():
    naive = run_case("prints_forever", "subprocess.run", TIMEOUT)
    mine = run_case("prints_forever", "miniagent", TIMEOUT)
    assert naive.kept_bytes > 100_000 and mine.kept_bytes < 9_000
    assert naive.peak_bytes >= naive.kept_bytes and mine.peak_bytes < 1_000_000


def test_a_setsid_child_holds_the_drain_until_it_ends_and_miniagent_kills_it():
    drain = run_case("setsid_child", "group + drain", TIMEOUT)
    assert drain.seconds > 3.5 and "late" in drain.text
    naive = run_case("setsid_child", "subprocess.run", TIMEOUT)
    assert naive.survivors >= 2
    mine = run_case("setsid_child", "miniagent", TIMEOUT)
    assert mine.survivors == 0 and mine.seconds < TIMEOUT + 2 and "late" not in mine.text


def test_the_secret_reaches_the_naive_command_and_not_miniagents():
    assert run_case("reads_secret", "subprocess.run").leaked_secret
    mine = run_case("reads_secret", "miniagent")
    assert not mine.leaked_secret and mine.text.startswith("key=\n")


def test_an_unknown_way_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown way"):
        run_case("reads_secret", "os.system")


@pytest.mark.parametrize("case", list(COMMANDS))
def test_every_case_cleans_up_after_itself(case):
    assert [run_case(case, way, TIMEOUT).left for way in WAYS] == [0, 0, 0]


def test_escape_table_three_ways():
    from chapters.a3.escapes import ESCAPE_WAYS, ESCAPES, by_cmdline, escape_table_as_agent
    from miniagent.sandbox import Bwrap
    rows = {(r.escape, r.way): r for r in escape_table_as_agent(timeout=1.0)}
    assert set(rows) == {(e, w) for e in ESCAPES for w in ESCAPE_WAYS}
    verdict = {key: r.verdict for key, r in rows.items()}
    # the naive way lets everything through; miniagent's boundary stops the environment variable and the bomb
    assert all(verdict[(e, "subprocess.run")] == "escaped" for e in ESCAPES)
    stopped = {e for e in ESCAPES if verdict[(e, "miniagent")] == "stopped"}
    assert stopped == {"secret in the environment", "fork bomb (bounded)"}
    assert verdict[("secret via /proc/$PPID/environ", "miniagent")] == "escaped"
    try:
        Bwrap()
    except Exception:
        assert all(verdict[(e, "miniagent + bwrap")] == "unavailable" for e in ESCAPES)
    else:
        inside = {e for e in ESCAPES if verdict[(e, "miniagent + bwrap")] == "escaped"}
        assert inside == {"read elsewhere (/etc/passwd)"}
    # the bounded fork bomb: within its bound (at most 62 processes) and nothing of it is left running
    assert int(rows[("fork bomb (bounded)", "subprocess.run")].detail.split()[0]) <= 62
    assert not by_cmdline("sleep\0600.")  # cmdline arguments are NUL-separated
