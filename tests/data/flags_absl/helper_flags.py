"""A module defining two flags, one of them key, for scenario.key_flags."""


def define(f, fv):
    f.DEFINE_string("h_one", "1", "Helper one.", flag_values=fv)
    f.DEFINE_string("h_two", "2", "Helper two.", flag_values=fv)
    f.declare_key_flag("h_one", flag_values=fv)
