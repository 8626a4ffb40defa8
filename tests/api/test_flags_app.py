"""tf.flags and tf.app.run.

The expected outputs were recorded with TensorFlow 2.21 (`tf.compat.v1.flags` and
`tf.compat.v1.app.run`, absl-based) running the same program (GREET below, importing
TensorFlow's modules instead): parsed values, the arguments main receives, the exit
status and the `--help` text. Error messages are absl's, recorded the same way.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from tfx.core.api import app_api
from tfx.core.api import flags_api as flags

GREET = textwrap.dedent('''\
    import tfx.core.api.app_api as app
    import tfx.core.api.flags_api as flags

    flags.DEFINE_string("name", "world", "Who to greet.")
    flags.DEFINE_integer("times", 1, "How many greetings.", lower_bound=1)
    flags.DEFINE_boolean("shout", False, "Greet in capitals, with a long help text that "
                         "wraps past the eighty-column limit of the help output.")
    flags.DEFINE_enum("lang", "en", ["en", "fr"], "Language.")
    flags.DEFINE_multi_integer("port", [80, 443], "Ports.")
    flags.DEFINE_string("out", None, "Output file.")
    FLAGS = flags.FLAGS


    def main(argv):
        text = ("bonjour " if FLAGS.lang == "fr" else "hello ") + FLAGS.name
        print((text.upper() if FLAGS.shout else text) * FLAGS.times, argv[1:], FLAGS.port)
        return 3 if FLAGS.out == "fail" else None


    if __name__ == "__main__":
        app.run(main)
    ''')

GREET_HELP = """
       USAGE: greet.py [flags]
flags:

greet.py:
  --lang: <en|fr>: Language.
    (default: 'en')
  --name: Who to greet.
    (default: 'world')
  --out: Output file.
  --port: Ports.;
    repeat this option to specify a list of values
    (default: '[80, 443]')
    (an integer)
  --[no]shout: Greet in capitals, with a long help text that wraps past the
    eighty-column limit of the help output.
    (default: 'false')
  --times: How many greetings.
    (default: '1')
    (a positive integer)

Try --helpfull to get a list of all flags.
"""


@pytest.fixture(scope="module")
def greet(tmp_path_factory):
    folder = tmp_path_factory.mktemp("greet")
    (folder / "greet.py").write_text(GREET)

    def run(*args: str) -> tuple[int, str]:
        # absl (and tfx) wrap help to $COLUMNS, else the terminal, else 80 columns
        done = subprocess.run([sys.executable, "greet.py", *args], cwd=folder,
                              capture_output=True, text=True, timeout=120,
                              env={**os.environ, "COLUMNS": "80"})
        return done.returncode, done.stdout

    return run


def test_program_run_as_tensorflows(greet):
    assert greet() == (0, "hello world [] [80, 443]\n")
    assert greet("--name=Ann", "--times", "2", "--shout", "--lang=fr", "extra", "--port=1",
                 "--port", "2", "--", "--times=5") == (
        0, "BONJOUR ANNBONJOUR ANN ['extra', '--', '--times=5'] [1, 2]\n")
    assert greet("--undefined=3", "x", "--noshout") == (
        0, "hello world ['--undefined=3', 'x'] [80, 443]\n")
    assert greet("--out=fail") == (3, "hello world [] [80, 443]\n")


def test_program_help_as_tensorflows(greet):
    assert greet("--help") == (1, GREET_HELP)
    assert greet("-?") == (1, GREET_HELP)
    status, text = greet("--helpfull")
    assert status == 1 and "\ngreet.py:\n" in text and "\ntfx.app:\n" in text
    assert "  -?,--[no]help: show this help\n" in text


@pytest.fixture
def fv():
    values = flags.FlagValues()
    flags.DEFINE_string("name", "world", "Who to greet.", flag_values=values)
    flags.DEFINE_integer("n", 3, "How many times.", lower_bound=0, upper_bound=10,
                         flag_values=values)
    flags.DEFINE_float("rate", 0.5, "Learning rate.", flag_values=values)
    flags.DEFINE_boolean("verbose", False, "Talk more.", flag_values=values)
    flags.DEFINE_bool("fast", True, "Go fast.", flag_values=values)
    flags.DEFINE_enum("mode", "train", ["train", "eval"], "Mode.", flag_values=values)
    flags.DEFINE_list("layers", ["a", "b"], "Layers.", flag_values=values)
    flags.DEFINE_multi_string("tag", [], "Tags.", flag_values=values)
    flags.DEFINE_multi_integer("port", 80, "Ports.", flag_values=values)
    flags.DEFINE_string("out", None, "Output dir.", flag_values=values)
    return values


def test_defaults_need_a_parse(fv):
    with pytest.raises(flags.UnparsedFlagAccessError,
                       match="Trying to access flag --name before flags were parsed"):
        _ = fv.name
    assert fv(["prog"]) == ["prog"]
    assert fv.flag_values_dict() == {
        "name": "world", "n": 3, "rate": 0.5, "verbose": False, "fast": True, "mode": "train",
        "layers": ["a", "b"], "tag": [], "port": [80], "out": None}


def test_command_line_forms(fv):
    argv = fv(["prog", "--name=x", "--n", "5", "--rate=1e-3", "--verbose", "--nofast",
               "--mode", "eval", "--layers=c,d,e", "--tag", "a", "--tag=b", "--port", "1",
               "--port=2", "pos1", "--", "--n=9"])
    assert argv == ["prog", "pos1", "--n=9"]
    assert fv.flag_values_dict() == {
        "name": "x", "n": 5, "rate": 0.001, "verbose": True, "fast": False, "mode": "eval",
        "layers": ["c", "d", "e"], "tag": ["a", "b"], "port": [1, 2], "out": None}
    assert fv["port"].present == 2 and not fv["port"].using_default_value
    fv.unparse_flags()
    assert not fv.is_parsed()
    assert fv(["prog", "-name=y", "-n=2", "--verbose=false", "--fast=t", "pos", "--n", "4",
               "--verbose", "false", "--port=0x10", "--layers="]) == ["prog", "pos", "false"]
    assert (fv.name, fv.n, fv.verbose, fv.fast, fv.port, fv.layers) == (
        "y", 4, True, True, [16], [])


@pytest.mark.parametrize("args, error, message", [
    (["--n=abc"], flags.IllegalFlagValueError,
     "flag --n=abc: invalid literal for int() with base 10: 'abc'"),
    (["--n=11"], flags.IllegalFlagValueError,
     "flag --n=11: 11 is not an integer in the range [0, 10]"),
    (["--rate=x"], flags.IllegalFlagValueError,
     "flag --rate=x: could not convert string to float: 'x'"),
    (["--mode=x"], flags.IllegalFlagValueError,
     "flag --mode=x: value should be one of <train|eval>"),
    (["--verbose=maybe"], flags.IllegalFlagValueError,
     "flag --verbose=maybe: ('Non-boolean argument to boolean flag', 'maybe')"),
    (["--bogus=1"], flags.UnrecognizedFlagError, "Unknown command line flag 'bogus'"),
    (["--nobogus"], flags.UnrecognizedFlagError, "Unknown command line flag 'nobogus'"),
    (["--nolayers"], flags.UnrecognizedFlagError,
     "Unknown command line flag 'nolayers'. Did you mean: layers ?"),
    (["--verbos"], flags.UnrecognizedFlagError,
     "Unknown command line flag 'verbos'. Did you mean: verbose ?"),
    (["--nofast=1"], ValueError, "--nofast=1 does not take an argument"),
    (["--ab"], flags.UnrecognizedFlagError, "Unknown command line flag 'ab'"),
    (["--nname=3"], flags.UnrecognizedFlagError,
     "Unknown command line flag 'nname'. Did you mean: name ?"),
    (["--name"], flags.Error, "Missing value for flag --name"),
])
def test_parse_errors_are_absls(fv, args, error, message):
    with pytest.raises(error) as info:
        fv(["prog", *args])
    assert str(info.value) == message


def test_known_only_keeps_unknown_flags_in_place(fv):
    assert fv(["prog", "x", "--bogus=1", "y", "--n", "4", "--", "--n=5"], known_only=True) == [
        "prog", "x", "--bogus=1", "y", "--", "--n=5"]
    assert fv.n == 4


def test_argv_checks(fv):
    with pytest.raises(TypeError, match="argv should be a tuple/list"):
        fv("prog --n=1")
    with pytest.raises(ValueError, match="argv cannot be an empty list"):
        fv([])


def test_required_flags_and_validators(fv):
    flags.mark_flag_as_required("out", fv)
    with pytest.raises(flags.IllegalFlagValueError) as info:
        fv(["prog"])
    assert str(info.value) == "flag --out=None: Flag --out must have a value other than None."
    fv(["prog", "--out=o"])
    assert fv.out == "o"
    with pytest.warns(UserWarning, match="non-None default value"):
        flags.mark_flag_as_required("name", fv)

    @flags.validator("n", "n must be even", flag_values=fv)
    def _even(value):
        return value % 2 == 0

    with pytest.raises(flags.IllegalFlagValueError, match="flag --n=3: n must be even"):
        fv(["prog", "--out=o", "--n=3"])
    fv.n = 4
    with pytest.raises(flags.IllegalFlagValueError, match="flag --n=5: n must be even"):
        fv.n = 5


def test_definition_errors_and_defaults():
    values = flags.FlagValues()
    flags.DEFINE_integer("a", "7", "A.", flag_values=values)
    flags.DEFINE_list("l", "x, y", "L.", flag_values=values)
    flags.DEFINE_enum("g", "A", ["A", "b"], "G.", case_sensitive=False, flag_values=values)
    flags.DEFINE_multi_string("m", "q", "M.", flag_values=values)
    values(["p", "--g=B"])
    assert (values.a, values.l, values.g, values.m) == (7, ["x", "y"], "b", ["q"])
    with pytest.raises(flags.DuplicateFlagError) as info:
        flags.DEFINE_integer("a", 2, "again", flag_values=values)
    assert str(info.value) == (f"The flag 'a' is defined twice. First from {__name__}, second "
                               f"from {__name__}. Description from first occurrence: A.")
    with pytest.raises(flags.IllegalFlagValueError, match="flag --d=1: 1 is not integer >= 2"):
        flags.DEFINE_integer("d", 1, "D.", lower_bound=2, flag_values=values)
    with pytest.raises(AttributeError, match="zz"):
        _ = values.zz
    values.a = 9
    assert values.a == 9 and values["a"].present == 0 and not values["a"].using_default_value
    values.set_default("l", "z")
    values.set_default("g", "A")
    assert values.l == ["z"] and values.g == "b"  # a parsed value is not a default
    assert values.get_flag_value("m", 5) == ["q"] and "a" in values and len(values) == 4
    with pytest.raises(AttributeError, match="missing"):  # absl's get_flag_value
        values.get_flag_value("missing", 5)
    del values.a
    assert "a" not in values


def test_old_keyword_names_are_renamed():
    values = flags.FlagValues()
    with pytest.warns(DeprecationWarning, match="flag_name, default_value, docstring"):
        flags.DEFINE_string(flag_name="s", default_value="v", docstring="S.",
                            flag_values=values)
    values(["p"])
    assert values.s == "v" and values["s"].help == "S."


def test_help_text_is_absls(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")  # absl wraps help to the terminal's width
    values = flags.FlagValues()
    flags.DEFINE_integer("a", 1, "A.", lower_bound=0, flag_values=values)
    flags.DEFINE_integer("b", 1, "B.", upper_bound=5, flag_values=values)
    flags.DEFINE_float("e", 1, "E.", lower_bound=0.5, upper_bound=2, flag_values=values)
    flags.DEFINE_float("f", 1, "F.", lower_bound=0, flag_values=values)
    flags.DEFINE_list("l", "x,y", "L.", flag_values=values)
    flags.DEFINE_multi_string("m", "q", "M.", flag_values=values)
    assert values.module_help(__name__).splitlines() == [
        "", f"{__name__}:",
        "  --a: A.", "    (default: '1')", "    (a non-negative integer)",
        "  --b: B.", "    (default: '1')", "    (integer <= 5)",
        "  --e: E.", "    (default: '1.0')", "    (a number in the range [0.5, 2])",
        "  --f: F.", "    (default: '1.0')", "    (a non-negative number)",
        "  --l: L.", "    (default: 'x,y')", "    (a comma separated list)",
        "  --m: M.;", "    repeat this option to specify a list of values",
        "    (default: \"['q']\")"]
    assert values.get_help(include_special_flags=False) == values.module_help(__name__)
    assert values.get_help().splitlines()[-9:] == [  # absl's special flags, as TF prints
        "", "absl.flags:",
        "  --flagfile: Insert flag definitions from the given file into the command line.",
        "    (default: '')",
        "  --undefok: comma-separated list of flag names that it is okay to specify on",
        "    the command line even if the program does not define a flag with that name.",
        "    IMPORTANT: flags in this list that have arguments MUST use the --flag=value",
        "    format.", "    (default: '')"]
    assert values.main_module_help() == ""


def test_global_flags_parse_sys_argv_on_first_read(monkeypatch):
    flags.DEFINE_integer("h5_implicit", 1, "Test flag.")
    try:
        monkeypatch.setattr(sys, "argv", ["prog", "--h5_implicit=6"])
        flags.FLAGS.unparse_flags()
        assert flags.FLAGS.h5_implicit == 6 and flags.FLAGS.is_parsed()
    finally:
        del flags.FLAGS.h5_implicit
        flags.FLAGS.unparse_flags()


def test_app_run_passes_remaining_arguments_and_exits_with_mains_result(capsys, monkeypatch):
    flags.DEFINE_string("h5_greeting", "hi", "Test flag.")
    seen = []

    def main(argv):
        seen.append((argv, flags.FLAGS.h5_greeting))
        return 4

    try:
        with pytest.raises(SystemExit) as exit_info:
            app_api.run(main, ["prog", "--h5_greeting=yo", "pos", "--unknown"])
        assert exit_info.value.code == 4
        assert seen == [(["prog", "pos", "--unknown"], "yo")]
        assert app_api.flags is flags
        with pytest.raises(flags.IllegalFlagValueError):
            app_api.run(main, ["prog", "--help=maybe"])
        flags.FLAGS.unparse_flags()
        with pytest.raises(SystemExit) as exit_info:
            app_api.run(main, ["prog", "--helpshort"])
        assert exit_info.value.code == 1
        # A main module with a docstring and no flags: the docstring ('%s': the program).
        monkeypatch.setattr(sys.modules["__main__"], "__doc__", "Tool %s.\n")
        flags.FLAGS.unparse_flags()
        with pytest.raises(SystemExit):
            app_api.run(main, ["prog", "--help"])
        assert capsys.readouterr().out.endswith(
            "Tool prog.\n\n\nTry --helpfull to get a list of all flags.\n")
    finally:
        del flags.FLAGS.h5_greeting
        flags.FLAGS.unparse_flags()


def test_flag_groups_and_space_separated_lists():
    values = flags.FlagValues()
    flags.DEFINE_string("a", None, "A.", flag_values=values)
    flags.DEFINE_string("b", None, "B.", flag_values=values)
    flags.DEFINE_boolean("x", False, "X.", flag_values=values)
    flags.DEFINE_boolean("y", False, "Y.", flag_values=values)
    flags.DEFINE_spaceseplist("s", "p q", "S.", flag_values=values)
    flags.mark_flags_as_mutual_exclusive(["a", "b"], flag_values=values)
    flags.mark_bool_flags_as_mutual_exclusive(["x", "y"], flag_values=values)
    cases = [
        (["--a=1", "--b=2"],
         "flags a=1, b=2: At most one of (a, b) must have a value other than None."),
        (["--x", "--y"], "flags x=True, y=True: At most one of (x, y) must be True."),
    ]
    for args, message in cases:
        with pytest.raises(flags.IllegalFlagValueError) as info:
            values(["p", *args])
        assert str(info.value) == message
        values.unparse_flags()
    values(["p", "--a=1", "--s=u  v,w"])
    assert (values.a, values.b, values.s) == ("1", None, ["u", "v,w"])
    assert values["s"].help_lines() == ["  --s: S.", "    (default: 'p q')",
                                        "    (a whitespace separated list)"]
    with pytest.raises(flags.IllegalFlagValueError, match="At most one of"):
        values.b = "2"
    with pytest.raises(flags.ValidationError,
                       match="Flag --a is not Boolean, which is required for flags used in "
                             "mark_bool_flags_as_mutual_exclusive."):
        flags.mark_bool_flags_as_mutual_exclusive(["a", "b"], flag_values=values)

    required = flags.FlagValues()
    flags.DEFINE_string("a", None, "A.", flag_values=required)
    flags.DEFINE_string("b", None, "B.", flag_values=required)
    flags.mark_flags_as_mutual_exclusive(["a", "b"], required=True, flag_values=required)
    with pytest.raises(flags.IllegalFlagValueError) as info:
        required(["p"])
    assert str(info.value) == ("flags a=None, b=None: Exactly one of (a, b) must have a value "
                               "other than None.")

    @flags.multi_flags_validator(["a", "b"], "a before b", flag_values=required)
    def _ordered(group):
        return group["a"] is None or group["b"] is None or group["a"] < group["b"]

    assert required(["p", "--b=1"]) == ["p"]


def test_flag_dict_to_args():
    assert list(flags.flag_dict_to_args(
        {"a": 1, "b": None, "c": True, "d": False, "e": [1, 2], "f": "x", "g": ["u", "v"]},
        multi_flags={"g"})) == ["--a=1", "--b", "--c", "--nod", "--e=1,2", "--f=x", "--g=u",
                                "--g=v"]
