# api_check.py - an omniidl back end that checks the API idl2c's driver
# gives interfaces.py (driver.py's head): for each typedef of api.idl, the
# C type, the kind, the variable-length rule (names F_/V_) and the TypeCode
# expression.  Run by tests/idl2c.test:
#   omniidl -p tests/idl2c -p idl2c -b api_check tests/idl2c/api.idl
# Prints "api_check: N checks" and exits 1 at the first wrong answer.
import sys

from omniidl import idlast
from idl2c_be import driver

EXPECT = {
    # name: (ctype, kind, tc_expr)
    "F_long": ("CORBA_long", "basic", "TC_CORBA_long"),
    "F_struct": ("A_FS", "struct", "TC_A_FS"),
    "V_struct": ("A_VS", "struct", "TC_A_VS"),
    "F_union": ("A_FU", "union", "TC_A_FU"),
    "V_union": ("A_VU", "union", "TC_A_VU"),
    "F_enum": ("A_E", "enum", "TC_A_E"),
    "F_fixed": ("CORBA_fixed_4_1", "fixed", "(&IDL2C_api_tc_fixed_4_1)"),
    "F_array": (None, "array", None),
    "V_array": (None, "array", None),
    "F_struct_array": (None, "array", None),
    "V_string": ("CORBA_string", "string", "TC_CORBA_string"),
    "V_bstring": ("CORBA_string", "string", "(&IDL2C_api_tc_string_5)"),
    "V_wstring": ("CORBA_wstring", "wstring", "TC_CORBA_wstring"),
    "V_seq": ("CORBA_sequence_CORBA_long", "sequence", "(&IDL2C_api_tc_seq_0_long)"),
    "V_any": ("CORBA_any", "any", "TC_CORBA_any"),
    "V_typecode": ("CORBA_TypeCode", "typecode", "TC_CORBA_TypeCode"),
    "V_object": ("CORBA_Object", "objref", "TC_CORBA_Object"),
    "V_objref": ("A_I", "objref", "TC_A_I"),
    "F_alias_alias": ("A_F_struct", "struct", "TC_A_F_struct"),
    "V_alias_alias": ("A_V_seq", "sequence", "TC_A_V_seq"),
    "V_nested": ("A_NestedV", "struct", "TC_A_NestedV"),
}


def fail(msg):
    sys.stderr.write("api_check: %s\n" % msg)
    sys.exit(1)


def run(tree, args):
    ctx = driver.Context(tree, "api")
    n = 0
    seen = set()
    for mod in tree.declarations():
        if not isinstance(mod, idlast.Module):
            continue
        for d in mod.definitions():
            if not isinstance(d, idlast.Typedef):
                continue
            for decl in d.declarators():
                name = decl.identifier()
                if name not in EXPECT:
                    continue
                seen.add(name)
                t = d.aliasType()
                if decl.sizes():
                    # the declarator names the array type: look it up as a use would
                    from omniidl import idltype
                    t = idltype.declaredType(decl, decl.scopedName(), idltype.tk_alias, 0)
                ctype, kind, tc = EXPECT[name]
                if ctype is not None and ctx.ctype(t) != ctype:
                    fail("%s: ctype %r, not %r" % (name, ctx.ctype(t), ctype))
                if ctx.kind(t) != kind:
                    fail("%s: kind %r, not %r" % (name, ctx.kind(t), kind))
                var = name.startswith("V_")
                if ctx.is_variable(t) != var:
                    fail("%s: is_variable %r" % (name, ctx.is_variable(t)))
                if tc is not None and ctx.tc_expr(t) != tc:
                    fail("%s: tc_expr %r, not %r" % (name, ctx.tc_expr(t), tc))
                n += 4
    if seen != set(EXPECT):
        fail("typedefs not found: %s" % ", ".join(sorted(set(EXPECT) - seen)))
    if ctx.cname(["A", "I", "op"]) != "A_I_op":
        fail("cname")
    print("api_check: %d checks" % (n + 1))
