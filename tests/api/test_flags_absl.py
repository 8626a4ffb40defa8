"""tf.flags' absl classes and functions give absl's results, as TensorFlow 2.21's tf.flags.

tests/data/flags_absl/scenario.py runs the same calls with a flags module; generate.py
beside it recorded their results under absl.flags (TensorFlow 2.21's tf.flags, absl-py
2.5.1) in expected.json, and each case here runs them with tfx's flags and compares.
"""

from __future__ import annotations

import enum
import importlib.util
import inspect
import json
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import tfx as tf
from tfx.core.api import flags_api as flags
from tfx.core.api import tf_decorator

DATA = Path(__file__).resolve().parents[1] / "data" / "flags_absl"
EXPECTED = json.loads((DATA / "expected.json").read_text())


def _load_path(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _load(name: str, file: str):
    return sys.modules.get(name) or _load_path(name, DATA / file)


@pytest.fixture(scope="module")
def results():
    scenario = _load("flags_absl_scenario", "scenario.py")
    helper = _load("flags_absl_helper", "helper_flags.py")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("COLUMNS", "80")
        return json.loads(json.dumps(scenario.everything(flags, helper)))


CASES = [(section, case) for section, cases in EXPECTED.items() for case in cases]


@pytest.mark.parametrize("section, case", CASES, ids=[f"{s}:{c}" for s, c in CASES])
def test_flags_match_absl(results, section, case):
    assert results[section][case] == EXPECTED[section][case]


def test_tf_flags_holds_tensorflows_names():
    names = json.loads((Path(__file__).resolve().parents[1] / "data" /
                        "tf1_namespaces.json").read_text())["flags"]
    assert sorted(set(names) - set(dir(tf.flags))) == []
    assert tf.flags.tf_decorator is tf_decorator and tf.flags.FlagHolder is flags.FlagHolder


class _Mode(enum.Enum):
    TRAIN = 1
    EVAL = 2


def test_enum_class_and_alias_flags_on_the_global_flags():
    holder = flags.DEFINE_enum_class("h5d_mode", _Mode.TRAIN, _Mode, "Mode.")
    alias = flags.DEFINE_alias("h5d_m", "h5d_mode")
    try:
        flags.FLAGS(["prog", "--h5d_m=eval"])
        assert holder.value is _Mode.EVAL and alias.value is _Mode.EVAL
        assert flags.FLAGS.h5d_mode is _Mode.EVAL and holder.present
        assert flags.FLAGS.find_module_defining_flag("h5d_m") == __name__
    finally:
        del flags.FLAGS.h5d_mode
        del flags.FLAGS.h5d_m
        flags.FLAGS.unparse_flags()


def test_disclaimed_module_credits_its_caller(tmp_path):
    (tmp_path / "h5d_defs.py").write_text(
        "from tfx.core.api import flags_api as flags\n"
        "flags.disclaim_key_flags()\n"
        "def define(fv):\n"
        "    flags.DEFINE_integer('h5d_n', 1, 'N.', flag_values=fv)\n")
    h5d_defs = _load_path("h5d_defs", tmp_path / "h5d_defs.py")
    try:
        values = flags.FlagValues()
        h5d_defs.define(values)
        assert values.find_module_defining_flag("h5d_n") == __name__
    finally:
        flags._DISCLAIMED.discard("h5d_defs")
        sys.modules.pop("h5d_defs", None)


def test_tf_decorator_keeps_the_target_and_unwraps():
    def target(a, b=2):
        """Adds."""
        return a + b

    def wrapper(*args, **kwargs):
        return target(*args, **kwargs) * 10

    decorated = tf_decorator.make_decorator(target, wrapper, "times_ten")
    assert decorated(1) == 30 and decorated.__name__ == "target"
    assert decorated.__doc__ == "Adds." and decorated.__wrapped__ is target
    assert str(inspect.signature(decorated)) == "(a, b=2)"
    decorators, inner = tf_decorator.unwrap(decorated)
    assert inner is target and [d.decorator_name for d in decorators] == ["times_ten"]
    assert decorators[0](1, 1) == 2  # a TFDecorator calls its target

    def other(a, b=0):
        return -a

    assert tf_decorator.rewrap(decorated, target, other) is decorated
    assert tf_decorator.unwrap(decorated)[1] is other and decorated.__wrapped__ is other
    assert tf_decorator.rewrap(target, target, other) is other
    spec = inspect.getfullargspec(lambda x, *rest, y=1, **kw: None)
    assert str(tf_decorator.fullargspec_to_signature(spec)) == "(x, *rest, y=1, **kw)"
    assert flags.DEFINE_string.__wrapped__.__name__ == "DEFINE_string"


@given(st.integers(-10**6, 10**6), st.one_of(st.none(), st.integers(-100, 100)),
       st.one_of(st.none(), st.integers(-100, 100)))
def test_integer_parser_accepts_exactly_the_bounded_ints(value, lower, upper):
    parser = flags.IntegerParser(lower, upper)
    inside = (lower is None or value >= lower) and (upper is None or value <= upper)
    if inside:
        assert parser.parse(str(value)) == value == parser.parse(value)
        if value >= 0:
            assert parser.parse(hex(value)) == value and parser.parse(oct(value)) == value
    else:
        with pytest.raises(ValueError, match=f"^{value} is not "):
            parser.parse(str(value))


@given(st.lists(st.text(st.characters(blacklist_categories=("Cs", "Zs", "Cc")), min_size=1)
                .filter(lambda s: s == s.strip()), min_size=1))
def test_list_flags_round_trip_through_csv(items):
    text = flags.CsvListSerializer(",").serialize(items)
    assert flags.ListParser().parse(text) == items
