"""tf.flags scenarios run with absl.flags (generate.py, under TensorFlow 2.21's absl-py 2.5.1)
and with tfx's flags module (tests/api/test_flags_absl.py): parsers and serializers,
DEFINE, DEFINE_flag, DEFINE_multi*, enum-class and alias flags, FlagHolder, set_default,
override_value, key flags, flag files, --undefok, text_wrap and doc_to_help.

Each scenario takes the flags module `f` and returns {case: result}; an exception is
[its type name, its message].
"""
import enum
import os
import tempfile


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 3


def outcome(fn):
    try:
        return ["ok", repr(fn())]
    except Exception as exc:  # noqa: BLE001
        return [type(exc).__name__, str(exc)]


def parsers(f):
    out = {}
    p = f.IntegerParser(0, 10)
    out["int_help"] = p.syntactic_help
    out["int_shared"] = f.IntegerParser(0, 10) is p
    for text in ["7", "0x1f", "0o17", "0X1f", "-3", "11", "x", "010"]:
        out[f"int {text}"] = outcome(lambda t=text: p.parse(t))
    out["int type"] = outcome(lambda: p.parse(2.5))
    for lo, hi in [(None, None), (1, None), (None, -1), (0, None), (None, 0), (None, 5), (3, None)]:
        out[f"int help {lo} {hi}"] = f.IntegerParser(lo, hi).syntactic_help
        out[f"float help {lo} {hi}"] = f.FloatParser(lo, hi).syntactic_help
    fp = f.FloatParser(0.5, 2)
    for text in ["1", "3", "nan", "x", 1, True]:
        out[f"float {text!r}"] = outcome(lambda t=text: fp.parse(t))
    b = f.BooleanParser()
    for value in ["T", "false", "0", 1, 2, "yes", 1.0, None]:
        out[f"bool {value!r}"] = outcome(lambda v=value: b.parse(v))
    e = f.EnumParser(["Apple", "banana"], case_sensitive=False)
    for text in ["apple", "BANANA", "cherry"]:
        out[f"enum {text}"] = outcome(lambda t=text: e.parse(t))
    out["enum exact"] = outcome(lambda: f.EnumParser(["a", "b"]).parse("A"))
    out["enum empty"] = outcome(lambda: f.EnumParser([]))
    out["enum str"] = outcome(lambda: f.EnumParser("ab"))
    c = f.EnumClassParser(Color)
    out["ec names"] = list(c.member_names)
    out["ec names lower"] = list(f.EnumClassParser(Color, case_sensitive=False).member_names)
    for value in ["RED", "red", Color.BLUE, 3]:
        out[f"ec {value!r}"] = outcome(lambda v=value: c.parse(v))
    out["ec lower parse"] = outcome(
        lambda: f.EnumClassParser(Color, case_sensitive=False).parse("gReEn"))
    out["ec notenum"] = outcome(lambda: f.EnumClassParser(int))

    class Empty(enum.Enum):
        pass

    class Clash(enum.Enum):
        a = 1
        A = 2

    out["ec empty"] = outcome(lambda: f.EnumClassParser(Empty))[0]
    out["ec clash"] = outcome(lambda: f.EnumClassParser(Clash, case_sensitive=False))
    lp = f.ListParser()
    for text in ['a, "b,c" ,d', "", 'a,"b', "x"]:
        out[f"list {text!r}"] = outcome(lambda t=text: lp.parse(t))
    ws = f.WhitespaceSeparatedListParser(comma_compat=True)
    out["ws"] = ws.parse(" a,b  c ")
    out["ws help"] = [ws.syntactic_help, ws.flag_type(), lp.syntactic_help, lp.flag_type()]
    bl = f.BaseListParser(";", "semicolon")
    out["base"] = [bl.parse("a; b;c"), bl.syntactic_help, bl.flag_type()]
    out["types"] = [f.ArgumentParser().flag_type(), p.flag_type(), fp.flag_type(),
                    b.flag_type(), e.flag_type(), c.flag_type()]
    out["ser"] = [f.ArgumentSerializer().serialize(3.5), f.ListSerializer("|").serialize([1, 2]),
                  f.CsvListSerializer(",").serialize(["a", "b,c", 'd"e']),
                  f.EnumClassSerializer(lowercase=True).serialize(Color.RED),
                  f.EnumClassSerializer(lowercase=False).serialize(Color.RED),
                  f.EnumClassListSerializer(",", lowercase=True).serialize(
                      [Color.RED, Color.BLUE]),
                  f.EnumClassListSerializer(";", lowercase=False).serialize(Color.GREEN)]
    out["str parse"] = outcome(lambda: f.ArgumentParser().parse(3))
    return out


def defines(f):
    out = {}
    fv = f.FlagValues()
    h = f.DEFINE_enum_class("color", Color.RED, Color, "Paint.", flag_values=fv)
    hm = f.DEFINE_multi_enum_class("colors", ["red", Color.BLUE], Color, "Many.",
                                   flag_values=fv)
    me = f.DEFINE_multi_enum("fruit", ["a"], ["a", "b", "C"], "Fruit.", flag_values=fv,
                             case_sensitive=False)
    cs = f.DEFINE_enum_class("shade", None, Color, "Shade.", case_sensitive=True,
                             flag_values=fv)
    custom = f.DEFINE(f.IntegerParser(lower_bound=2), "workers", "4", "Workers.",
                      flag_values=fv, serializer=f.ArgumentSerializer(), short_name="w")
    multi = f.DEFINE_multi(f.FloatParser(), f.ArgumentSerializer(), "rate", 0.5, "Rates.",
                           flag_values=fv)
    flag = f.Flag(f.BooleanParser(), None, "raw", "true", "", boolean=True)
    raw = f.DEFINE_flag(flag, fv)
    alias = f.DEFINE_alias("c", "color", flag_values=fv)
    lst = f.DEFINE_list("names", 'x,"y,z"', "Names.", flag_values=fv)
    out["holders"] = [type(h).__name__, h.name, repr(h.default), h.present, h.serialize()]
    out["unparsed"] = outcome(lambda: h.value)
    out["defaults"] = [fv["color"].default_as_str, fv["colors"].default_as_str,
                       fv["fruit"].default_as_str, fv["workers"].default_as_str,
                       fv["rate"].default_as_str, fv["raw"].default_as_str,
                       fv["c"].default_as_str, fv["names"].default_as_str,
                       repr(fv["names"].default)]
    out["helps"] = [fv[n].help for n in ["color", "colors", "fruit", "shade", "raw", "c"]]
    out["flag types"] = [fv[n].flag_type() for n in
                         ["color", "colors", "fruit", "workers", "rate", "raw", "names"]]
    argv = fv(["prog", "--c=green", "--colors=RED", "--colors", "green", "--fruit=c",
               "-w", "0x10", "--rate=1", "--rate=2.5", "--noraw", "--shade=BLUE", "pos",
               "--names=a,b"])
    out["argv"] = argv
    out["values"] = [repr(h.value), repr(hm.value), repr(me.value), repr(custom.value),
                     repr(multi.value), repr(raw.value), repr(alias.value), repr(cs.value),
                     repr(lst.value)]
    out["present"] = [h.present, hm.present, fv["colors"].present, fv["c"].present,
                      fv["color"].present, multi.present, fv["rate"].present]
    out["serialize"] = [h.serialize(), hm.serialize(), me.serialize(), custom.serialize(),
                        multi.serialize(), raw.serialize(), alias.serialize(), cs.serialize(),
                        lst.serialize()]
    out["bad enum class"] = outcome(lambda: fv(["prog", "--color=pink"]))
    out["bad shade"] = outcome(lambda: fv(["prog", "--shade=blue"]))
    out["bad workers"] = outcome(lambda: fv(["prog", "--workers=1"]))
    out["eq"] = outcome(lambda: h == 1)
    out["bool"] = outcome(lambda: bool(h))
    out["flag bool"] = outcome(lambda: bool(fv["color"]))
    f.set_default(custom, 9)
    out["set_default"] = [custom.value, custom.default, fv["workers"].default_as_str]
    fv.unparse_flags()
    fv(["prog"])
    out["after unparse"] = [custom.value, repr(h.value)]
    f.override_value(custom, 5)
    out["override"] = [custom.value, fv["workers"].using_default_value, custom.present]
    out["override str"] = outcome(lambda: f.override_value(custom, "6"))
    out["override low"] = outcome(lambda: f.override_value(custom, 1))
    out["assign low"] = outcome(lambda: setattr(fv, "workers", 1))
    out["after failed assign"] = custom.value
    out["alias missing"] = outcome(lambda: f.DEFINE_alias("q", "nope", flag_values=fv))
    out["required default"] = outcome(
        lambda: f.DEFINE_string("rq", "x", "R.", flag_values=fv, required=True))
    req = f.DEFINE_string("needed", None, "N.", flag_values=fv, required=True)
    fv.unparse_flags()
    out["required missing"] = outcome(lambda: fv(["prog"]))
    fv(["prog", "--needed=v"])
    out["required holder"] = req.value
    nn = f.DEFINE_string("maybe", "d", "M.", flag_values=fv)
    fv.maybe = None
    out["non-none holder"] = outcome(lambda: nn.value)
    out["method name"] = outcome(lambda: f.DEFINE_string("flag_values_dict", "", "x",
                                                         flag_values=fv))
    ok = f.DEFINE_integer("get_help", 1, "x", flag_values=fv, allow_using_method_names=True)
    out["method allowed"] = [fv["get_help"].value, callable(ok.value), callable(fv.get_help)]
    out["dup short"] = outcome(lambda: f.DEFINE_string("other", "", "x", short_name="w",
                                                       flag_values=fv))
    f.DEFINE_string("over", "a", "first", flag_values=fv, allow_override=True)
    f.DEFINE_string("over", "b", "second", flag_values=fv)
    out["override def"] = [fv["over"].help, fv["over"].value]
    out["setitem bad"] = [outcome(lambda: fv.__setitem__("x", 3)),
                          outcome(lambda: fv.__setitem__("", fv["over"])),
                          outcome(lambda: fv.__setitem__("a b", fv["over"])),
                          outcome(lambda: fv.__setitem__(3, fv["over"]))]
    out["unknown set"] = outcome(lambda: setattr(fv, "nosuch", 3))
    out["unknown default"] = outcome(lambda: fv.set_default("nosuch", 3))
    out["module_help"] = fv.module_help(__name__)
    return out


def key_flags(f, helper):
    out = {}
    fv = f.FlagValues()
    helper.define(f, fv)
    f.DEFINE_integer("own", 1, "Own flag.", flag_values=fv)
    out["before"] = fv.module_help(__name__)
    out["helper"] = fv.module_help(helper.__name__)
    f.declare_key_flag("h_one", flag_values=fv)
    out["declared"] = fv.module_help(__name__)
    f.adopt_module_key_flags(helper, flag_values=fv)
    out["adopted"] = fv.module_help(__name__)
    out["undefined"] = outcome(lambda: f.declare_key_flag("zzz", flag_values=fv))
    out["not module"] = outcome(lambda: f.adopt_module_key_flags("x", flag_values=fv))
    out["key names"] = [fl.name for fl in fv.get_key_flags_for_module(__name__)]
    out["own names"] = [fl.name for fl in fv.get_flags_for_module(__name__)]
    out["defining"] = [fv.find_module_defining_flag("h_two"),
                       fv.find_module_defining_flag("own"),
                       fv.find_module_defining_flag("zz", "none")]
    out["dup"] = outcome(lambda: f.DEFINE_integer("h_two", 1, "x", flag_values=fv))
    del fv.h_two
    out["after delete"] = fv.module_help(helper.__name__)
    return out


def parsing(f):
    out = {}
    fv = f.FlagValues()
    f.DEFINE_integer("n", 1, "N.", flag_values=fv)
    f.DEFINE_boolean("v", False, "V.", flag_values=fv)
    f.DEFINE_multi_string("tag", [], "Tags.", flag_values=fv)
    folder = tempfile.mkdtemp()
    inner = os.path.join(folder, "inner.flags")
    outer = os.path.join(folder, "outer.flags")
    with open(inner, "w") as file:
        file.write("--tag=inner\n# comment\n\n// other\n--n=7\n")
    with open(outer, "w") as file:
        file.write(f"--tag=outer\n--flagfile={inner}\n  --v  \n")
    out["flagfile"] = [fv(["p", "a", f"--flagfile={outer}", "--tag=last", "b"]), fv.n, fv.v,
                       fv.tag]
    fv.unparse_flags()
    out["flagfile2"] = [fv(["p", "--flagfile", inner, "--n=2"]), fv.n, fv.tag]
    fv.unparse_flags()
    out["missing file"] = outcome(lambda: fv(["p", "--flagfile=/nonexistent/x.flags"]))
    out["flagfile no arg"] = outcome(lambda: fv(["p", "--flagfile"]))
    fv.unparse_flags()
    out["undefok"] = outcome(lambda: fv(["p", "--undefok=foo,bar", "--foo=1", "--nobar",
                                         "--n=3", "x"]))
    fv.unparse_flags()
    out["undefok2"] = outcome(lambda: fv(["p", "--undefok", "foo", "--foo", "--baz=2"]))
    fv.unparse_flags()
    out["known undefok"] = outcome(lambda: fv(["p", "--undefok=foo", "--foo=1", "--zap=2"],
                                              known_only=True))
    fv.unparse_flags()
    out["dash name"] = outcome(lambda: fv(["p", "---", "-", "--=3", "--n=4"]))
    out["str argv"] = outcome(lambda: fv("p --n=1"))
    out["text_wrap"] = [f.text_wrap("alpha beta gamma delta", 12, "  ", "> "),
                        f.text_wrap("one\n\n  two\tthree   \nfour", 20, "    "),
                        outcome(lambda: f.text_wrap("x", 4, "    ")),
                        outcome(lambda: f.text_wrap("x", 4, "", "     ")),
                        f.text_wrap("a-b-c-d-e-f-g-h", 6)]
    out["doc_to_help"] = [f.doc_to_help("""  First line
        continues here.

        Second paragraph
          indented more.
        \t
        end.  """), f.doc_to_help("")]
    out["width"] = f.get_help_width()
    return out


def extras(f):
    """Non-GNU scanning, flags_into_string and its flag file, copies and pickling."""
    import copy
    import pickle

    out = {}
    fv = f.FlagValues()
    f.DEFINE_integer("n", 1, "N.", flag_values=fv)
    f.DEFINE_boolean("v", False, "V.", flag_values=fv)
    f.DEFINE_string("s", None, "S.", flag_values=fv)
    f.DEFINE_list("l", ["a", "b,c"], "L.", flag_values=fv)
    f.DEFINE_multi_string("m", ["x", "y"], "M.", flag_values=fv)
    fv.set_gnu_getopt(False)
    out["gnu"] = fv.is_gnu_getopt()
    out["nongnu"] = [fv(["p", "--n=2", "pos", "--v", "--s", "t"]), fv.n, fv.v, fv.s]
    fv.unparse_flags()
    out["nongnu_value"] = [fv(["p", "--s", "word", "--n", "5", "pos", "--v"]), fv.n, fv.v,
                           fv.s]
    out["string"] = fv.flags_into_string()
    path = os.path.join(tempfile.mkdtemp(), "saved.flags")
    fv.append_flags_into_file(path)
    fv.append_flags_into_file(path)
    with open(path) as file:
        out["file"] = file.read()
    fv.set_gnu_getopt(True)
    fv.unparse_flags()
    out["gnu_again"] = fv(["p", "pos", "--n=3"])
    out["flagfile"] = [fv(["p", f"--flagfile={path}"]), fv.n, fv.m]
    out["pickle"] = outcome(lambda: pickle.dumps(fv))
    out["copy"] = outcome(lambda: copy.copy(fv))
    twin = copy.deepcopy(fv)
    twin.n = 42
    out["deepcopy"] = [fv.n, twin.n, twin["n"] is fv["n"]]
    return out


def xml_help(f):
    """write_help_in_xml_format's <flag> elements (program and usage vary by runner)."""
    import io
    import re

    fv = f.FlagValues()
    f.DEFINE_integer("count", 3, "Count <things> & more.", lower_bound=0, upper_bound=9,
                     flag_values=fv)
    f.DEFINE_float("rate", 0.5, "Rate.", lower_bound=0, flag_values=fv)
    f.DEFINE_boolean("verbose", False, "Verbose.", short_name="v", flag_values=fv)
    f.DEFINE_string("name", None, "Name.", flag_values=fv)
    f.DEFINE_list("layers", ["a", "b"], "Layers.", flag_values=fv)
    f.DEFINE_spaceseplist("words", "x y", "Words.", comma_compat=True, flag_values=fv)
    f.DEFINE_enum("mode", "train", ["train", "eval"], "Mode.", flag_values=fv)
    f.DEFINE_enum_class("color", Color.RED, Color, "Color.", flag_values=fv)
    f.DEFINE_multi_enum_class("colors", [Color.RED, Color.BLUE], Color, "Colors.",
                              flag_values=fv)
    f.DEFINE_multi_enum("fruit", ["a"], ["a", "b"], "Fruit.", flag_values=fv)
    f.DEFINE_multi_integer("ports", [80], "Ports.", flag_values=fv)
    fv(["prog", "--count=5", "--colors=green"])
    out = io.StringIO()
    fv.write_help_in_xml_format(out)
    text = re.sub(r"\s*<program>.*?</program>", "", out.getvalue(), flags=re.S)
    return {"xml": re.sub(r"\s*<usage>.*?</usage>", "", text, flags=re.S)}


def everything(f, helper):
    return {"parsers": parsers(f), "defines": defines(f), "key_flags": key_flags(f, helper),
            "parsing": parsing(f), "extras": extras(f), "xml": xml_help(f)}
