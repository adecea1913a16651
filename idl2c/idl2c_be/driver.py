# driver.py - idl2c's driver: walks omniidl's AST of FILE.idl and writes
# FILE.h, FILE-common.c, FILE-stubs.c and FILE-skels.c by the OMG IDL-to-C
# language mapping (the names ORBit2 implemented).
#
# This module maps the types (modules, constants, typedefs, enums, structs,
# unions, sequences, arrays, strings, wstrings, fixed, any, TypeCode,
# exceptions, forward declarations, interfaces as object types with their
# TypeCodes, valuetypes and value boxes); interfaces.py maps the interfaces' operations and attributes
# (client stubs, skeletons, the POA types).
#
# ---------------------------------------------------------------------------
# The API between this driver and interfaces.py
#
# The driver calls, in this order:
#   interfaces.begin(ctx)              once, before the walk; ctx.h already
#                                      holds the guard, the includes of
#                                      <corbaorb/corba.h> and of the included
#                                      IDL files' headers; ctx.stubs and
#                                      ctx.skels hold `#include "FILE.h"`.
#   interfaces.emit_interface(ctx, node)
#                                      for each idlast.Interface of the main
#                                      file (never an abstract or local one:
#                                      the driver refuses those), after the
#                                      driver wrote into ctx.h
#                                        typedef CORBA_Object Mod_I;
#                                        extern const cdr_type TC_Mod_I_struct;
#                                        #define TC_Mod_I ...   (tk_objref)
#                                      and the interface's nested types,
#                                      constants and exceptions.
#   interfaces.end(ctx)                once, after the walk, before ctx.h's
#                                      closing lines.
# Only main-file interfaces are passed; an interface of an included file is
# that file's header's.
#
# ctx (a Context) gives:
#   ctx.h, ctx.common, ctx.stubs, ctx.skels
#                     writers: w.out(text) appends text and a newline
#                     (text may hold several lines); w.blank() an empty line.
#   ctx.basename      "FILE" (FILE.idl without directory and extension).
#   ctx.cname(node_or_scopedname)
#                     the C name of a scoped node or of a scoped-name list:
#                     ["Mod", "I", "op"] -> "Mod_I_op".
#   ctx.repo_id(node) the repository ID (#pragma prefix/ID/version applied).
#   ctx.ctype(t)      the C type of the idltype T as a type name usable in a
#                     declaration `ctype name`: "CORBA_long", "CORBA_string"
#                     (char *), "CORBA_wstring", "Mod_T", "CORBA_sequence_E",
#                     "CORBA_fixed_5_2", "CORBA_any", "CORBA_TypeCode",
#                     "CORBA_Object", "void" (tk_void).  An array typedef's
#                     name is "Mod_A" (its slice "Mod_A_slice").  Anonymous
#                     types (sequences, bounded strings, fixed) get their
#                     declarations emitted into ctx.h at this point, so call
#                     it before writing the lines that use it.
#   ctx.tc_expr(t)    a C constant expression of type CORBA_TypeCode (a
#                     const cdr_type *) for T: "TC_CORBA_long", "TC_Mod_T",
#                     or the address of an anonymous type's descriptor.
#                     This descriptor drives cdr_write()/cdr_read().
#   ctx.kind(t)       T's kind after typedefs are resolved, one of
#                     'void' 'basic' 'enum' 'string' 'wstring' 'fixed' 'any'
#                     'typecode' 'objref' 'struct' 'union' 'except'
#                     'sequence' 'array'.
#   ctx.is_variable(t) True when T is variable-length by the mapping
#                     (strings, wstrings, sequences, any, TypeCode, object
#                     references, and structs, unions, exceptions and arrays
#                     holding one).
#   ctx.unalias(t)    the idltype after typedefs (an array typedef is
#                     returned as is: its kind() is 'array').
#   ctx.error(node, message)
#                     raise the file:line error the driver prints (nothing
#                     is written, exit status 1).
#   with ctx.at(node): ...
#                     errors raised inside without a node of their own (an
#                     unmapped type met by ctype/tc_expr) are given at NODE
#                     (an operation, a parameter); otherwise they are given
#                     at the interface.
# ---------------------------------------------------------------------------

import os
import re
import sys
import tempfile

from omniidl import idlast, idltype

from . import interfaces

C_KEYWORDS = set("""auto break case char const continue default do double else
enum extern float for goto if inline int long register restrict return short
signed sizeof static struct switch typedef union unsigned void volatile while
_Alignas _Alignof _Atomic _Bool _Complex _Generic _Imaginary _Noreturn
_Static_assert _Thread_local bool true false""".split())

# Object-like macros a C program has defined where it includes FILE.h: the
# C library's (<stddef.h>, which corbaorb/corba.h includes: NULL; <stdio.h>,
# <errno.h>, <wchar.h>, <iso646.h>) and those gcc and clang predefine in
# their GNU modes (the default: unix, linux, i386).  A member, parameter,
# operation or global-scope definition so named would be expanded by the
# preprocessor (`CORBA_string errno;` is a field named `(*__errno_location
# ())`), so idl2c escapes them as it does C keywords.
C_MACROS = set("""NULL EOF WEOF BUFSIZ errno stdin stdout stderr unix linux i386
and and_eq bitand bitor compl not not_eq or or_eq xor xor_eq""".split())

C_RESERVED = C_KEYWORDS | C_MACROS

# C++ keywords that are not C's (C++20): a C++ translation unit includes
# FILE.h too (inside extern "C"), so what it would read as a keyword is
# renamed for it alone where the C name matters to C code (a struct, union,
# exception or valuetype member, an epv field: `_class` under __cplusplus,
# `class` in C), and escaped as C keywords are where it does not (a
# parameter name in a prototype) or where C++ sees it everywhere (a
# global-scope definition: `struct class` is `_class` in C too).
CXX_KEYWORDS = set("""alignas alignof asm catch char8_t char16_t char32_t class concept
consteval constexpr constinit const_cast co_await co_return co_yield decltype delete
dynamic_cast explicit export friend mutable namespace new noexcept nullptr operator private
protected public reinterpret_cast requires static_assert static_cast template this
thread_local throw try typeid typename using virtual wchar_t""".split()) - C_RESERVED

BASIC = {
    idltype.tk_short: ("CORBA_short", "short"),
    idltype.tk_long: ("CORBA_long", "long"),
    idltype.tk_ushort: ("CORBA_unsigned_short", "unsigned_short"),
    idltype.tk_ulong: ("CORBA_unsigned_long", "unsigned_long"),
    idltype.tk_longlong: ("CORBA_long_long", "long_long"),
    idltype.tk_ulonglong: ("CORBA_unsigned_long_long", "unsigned_long_long"),
    idltype.tk_float: ("CORBA_float", "float"),
    idltype.tk_double: ("CORBA_double", "double"),
    idltype.tk_longdouble: ("CORBA_long_double", "long_double"),
    idltype.tk_boolean: ("CORBA_boolean", "boolean"),
    idltype.tk_char: ("CORBA_char", "char"),
    idltype.tk_wchar: ("CORBA_wchar", "wchar"),
    idltype.tk_octet: ("CORBA_octet", "octet"),
}

# The types and constants the runtime declares itself (corbaorb/corba.h):
# an IDL definition with one of these C names is refused (it would conflict).
RUNTIME_NAMES = set("""CORBA_ORB CORBA_ORBid CORBA_Object CORBA_Policy CORBA_PolicyList
CORBA_TypeCode CORBA_TCKind CORBA_Environment CORBA_SystemException CORBA_any CORBA_enum
CORBA_fixed CORBA_exception_type CORBA_completion_status CORBA_COMPLETED_YES CORBA_COMPLETED_NO
CORBA_COMPLETED_MAYBE CORBA_NO_EXCEPTION CORBA_USER_EXCEPTION CORBA_SYSTEM_EXCEPTION
CORBA_string CORBA_wstring CORBA_boolean CORBA_char CORBA_wchar CORBA_octet CORBA_short
CORBA_long CORBA_long_long CORBA_unsigned_short CORBA_unsigned_long CORBA_unsigned_long_long
CORBA_float CORBA_double CORBA_long_double CORBA_TRUE CORBA_FALSE CORBA_OBJECT_NIL
PortableServer_POA PortableServer_POAManager PortableServer_Servant PortableServer_ObjectId
PortableServer_ServantBase PortableServer_ForwardRequest PortableServer_IdAssignmentPolicyValue
PortableServer_LifespanPolicyValue PortableServer_PERSISTENT PortableServer_TRANSIENT
PortableServer_SYSTEM_ID PortableServer_USER_ID""".split()) | set(
    "CORBA_tk_" + k for k in """null void short long ushort ulong float double boolean char
octet any TypeCode Principal objref struct union enum string sequence array alias except
longlong ulonglong longdouble wchar wstring fixed value value_box native abstract_interface
local_interface""".split())

# The runtime's typed allocators (corbaorb/corba.h).
ALLOC = "corbaorb_alloc"
ALLOCBUF = "corbaorb_allocbuf"


class IdlError(Exception):
    def __init__(self, node, message):
        Exception.__init__(self, message)
        self.node = node
        self.message = message


class Decl(str):
    """A member's C declaration; CXX: the one a C++ compiler is given
    instead (its name a C++ keyword: `_` before it), or None."""
    cxx = None


class Writer:
    def __init__(self):
        self.parts = []

    def out(self, text=""):
        self.parts.append(text + "\n")

    def blank(self):
        self.parts.append("\n")

    def text(self):
        return "".join(self.parts)


def c_ident(name):
    return re.sub(r"[^A-Za-z0-9_]", "_", name)


def c_string(s):
    """A C string literal of the str S (octets as ISO-8859-1)."""
    r = ['"']
    for ch in s:
        o = ord(ch)
        if ch in '"\\':
            r.append("\\" + ch)
        elif 32 <= o < 127:
            if ch == "?":
                r.append("\\?")  # no trigraphs
            else:
                r.append(ch)
        else:
            r.append("\\%03o" % (o & 0xFF))
    r.append('"')
    return "".join(r)


def c_char(ch):
    o = ord(ch)
    if ch in "'\\":
        return "'\\" + ch + "'"
    if 32 <= o < 127:
        return "'" + ch + "'"
    return "'\\%03o'" % (o & 0xFF)


def c_int(v, kind):
    """An integer constant of kind KIND as a C expression."""
    if kind in (idltype.tk_longlong,):
        if v == -2 ** 63:
            return "(-%dLL - 1)" % (-v - 1)
        return "(%dLL)" % v if v < 0 else "%dLL" % v
    if kind in (idltype.tk_ulonglong,):
        return "%dULL" % v
    if kind in (idltype.tk_ulong, idltype.tk_ushort, idltype.tk_octet):
        return "%dU" % v
    if v == -2 ** 31:
        return "(-%d - 1)" % (-v - 1)
    return "(%d)" % v if v < 0 else "%d" % v


class Context:
    def __init__(self, tree, basename):
        self.tree = tree
        self.basename = basename
        self.prefix = "IDL2C_" + c_ident(basename)
        self.h = Writer()
        self.common = Writer()
        self.stubs = Writer()
        self.skels = Writer()
        self.anon = {}          # signature -> descriptor name (anonymous types)
        self.seq_c = set()      # CORBA_sequence_E names this header declares
        self.fixed_c = set()
        self.typedefs = set()   # struct/union typedefs already declared
        self.objtypes = set()
        self.var_memo = {}
        self.value_types = []   # the main file's cdr_value_type names

    # ---------------------------------------------------------------- names

    def cname(self, x):
        if isinstance(x, (list, tuple)):
            sn = x
        else:
            sn = x.scopedName()
        if len(sn) == 1 and (sn[0] in C_RESERVED or sn[0] in CXX_KEYWORDS):
            return "_" + sn[0]        # a global-scope `struct int`: `_int`
        return "_".join(sn)

    def repo_id(self, node):
        return node.repoId()

    def error(self, node, message):
        raise IdlError(node, message)

    class _At:
        def __init__(self, node):
            self.node = node

        def __enter__(self):
            return self

        def __exit__(self, et, e, tb):
            if et is not None and issubclass(et, IdlError) and e.node is None:
                e.node = self.node
            return False

    def at(self, node):
        return Context._At(node)

    def member_name(self, ident):
        return "_" + ident if ident in C_RESERVED else ident

    def hline(self, fmt, decl):
        """FMT % DECL for FILE.h; a Decl with a C++ name gets both, each
        under its #if (the C name for C, the `_` one for C++)."""
        cxx = getattr(decl, "cxx", None)
        if cxx is None:
            return fmt % decl
        return "#ifdef __cplusplus\n%s\n#else\n%s\n#endif" % (fmt % cxx, fmt % decl)

    # ---------------------------------------------------------------- C names

    def check_c_names(self, tree):
        """Refuse two IDL definitions whose scoped names join to one C name
        (A::B::C and A_B::C are both A_B_C; an operation I::f of A and a
        type A::I_f likewise): C would see one name declared twice.  The
        error is at the later one and names both.  An inherited operation's
        stub (D_f for B::f) is D's, so named D::f."""
        seen = {}

        def claim(cn, node, sn):
            first = seen.get(cn)
            if first is None:
                seen[cn] = (node, sn)
            elif first[1] != sn:
                fn = first[0]
                self.error(node, "%s and %s (%s:%d) both map to the C name %s"
                           % ("::".join(sn), "::".join(first[1]), fn.file(), fn.line(), cn))

        def named(d):
            claim(self.cname(d), d, tuple(d.scopedName()))

        def constr(t):
            """A struct, union or enum declared inside a member or case."""
            if isinstance(t, idltype.Declared):
                visit(t.decl())

        def visit(d):
            if isinstance(d, idlast.Module):
                for x in d.definitions():
                    visit(x)
            elif isinstance(d, idlast.Interface):
                named(d)
                cn = self.cname(d)
                for x in d.declarations():
                    visit(x)
                # the stubs of its own operations and of its bases' (D_f for B::f)
                for c in [c for b in interfaces.ancestors(d) + [d] for c in b.callables()]:
                    if isinstance(c, idlast.Operation):
                        claim("%s_%s" % (cn, c.identifier()), c,
                              tuple(d.scopedName()) + (c.identifier(),))
                    elif isinstance(c, idlast.Attribute):
                        for a in c.declarators():
                            for acc in ("_get_", "_set_") if not c.readonly() else ("_get_",):
                                claim("%s_%s%s" % (cn, acc, a.identifier()), a,
                                      tuple(d.scopedName()) + (acc + a.identifier(),))
            elif isinstance(d, idlast.Typedef):
                if d.constrType():
                    constr(d.aliasType())
                for x in d.declarators():
                    named(x)
            elif isinstance(d, idlast.Enum):
                named(d)
                for x in d.enumerators():
                    named(x)
            elif isinstance(d, (idlast.Struct, idlast.Exception)):
                named(d)
                for m in d.members():
                    if m.constrType():
                        constr(m.memberType())
            elif isinstance(d, idlast.Union):
                named(d)
                if d.constrType():
                    constr(d.switchType())
                for c in d.cases():
                    if c.constrType():
                        constr(c.caseType())
            elif isinstance(d, idlast.DeclRepoId):
                named(d)          # constants, valuetypes, forward declarations

        for d in tree.declarations():
            if d.file() != "<built in>":
                visit(d)

    # ---------------------------------------------------------------- types

    def unalias(self, t):
        while isinstance(t, idltype.Declared) and t.kind() == idltype.tk_alias:
            d = t.decl()
            if d.sizes():
                return t
            t = d.alias().aliasType()
        return t

    def _check_declared(self, t):
        """Refuse a use of a type idl2c does not map (the error is given at
        the use: the member, case or typedef that names it)."""
        what = {idltype.tk_native: "native",
                idltype.tk_abstract_interface: "abstract interface",
                idltype.tk_local_interface: "local interface"}.get(t.kind())
        d = t.decl()
        if t.kind() == idltype.tk_value and isinstance(value_full(d), idlast.ValueAbs):
            what = "abstract valuetype"
        if isinstance(value_full(d), idlast.ValueForward):
            if d.abstract():
                what = "abstract valuetype"
            else:
                raise IdlError(None, "valuetype %s is declared (at %s:%d) but never defined"
                               % ("::".join(t.scopedName()), d.file(), d.line()))
        if what:
            extra = ""
            if what == "abstract valuetype":
                extra = " as a type (only as a base of a concrete valuetype)"
            raise IdlError(None, "%s %s is not mapped by idl2c%s (declared at %s:%d)"
                           % (what, "::".join(t.scopedName()), extra, d.file(), d.line()))

    def kind(self, t):
        t = self.unalias(t)
        k = t.kind()
        if k in BASIC:
            return "basic"
        if k == idltype.tk_void:
            return "void"
        if k == idltype.tk_string:
            return "string"
        if k == idltype.tk_wstring:
            return "wstring"
        if k == idltype.tk_fixed:
            return "fixed"
        if k == idltype.tk_any:
            return "any"
        if k == idltype.tk_TypeCode:
            return "typecode"
        if k == idltype.tk_sequence:
            return "sequence"
        if k == idltype.tk_alias:
            return "array"
        if k == idltype.tk_objref:
            return "objref"
        if k in (idltype.tk_struct, idltype.ot_structforward):
            return "struct"
        if k in (idltype.tk_union, idltype.ot_unionforward):
            return "union"
        if k == idltype.tk_enum:
            return "enum"
        if k == idltype.tk_except:
            return "except"
        if isinstance(t, idltype.Declared):
            self._check_declared(t)
        if k in (idltype.tk_value, idltype.tk_value_box):
            return "value"
        raise IdlError(None, "type kind %d is not mapped by idl2c" % k)

    def is_variable(self, t):
        t = self.unalias(t)
        k = self.kind(t)
        if k in ("string", "wstring", "sequence", "any", "typecode", "objref", "value"):
            return True
        if k == "array":
            return self.is_variable(t.decl().alias().aliasType())
        if k in ("struct", "union", "except"):
            decl = t.decl()
            if isinstance(decl, (idlast.StructForward, idlast.UnionForward)):
                decl = decl.fullDecl()
            key = id(decl)
            if key in self.var_memo:
                return self.var_memo[key]
            self.var_memo[key] = False   # recursion goes through a sequence
            if k == "union":
                v = any(self.is_variable(c.caseType()) for c in decl.cases())
            else:
                v = any(self.is_variable(m.memberType()) for m in decl.members())
            self.var_memo[key] = v
            return v
        return False

    def ident(self, t):
        """The identifier a type contributes to a CORBA_sequence_ name."""
        k = t.kind()
        if k in BASIC:
            return BASIC[k][0]
        if k == idltype.tk_string:
            return "CORBA_string"
        if k == idltype.tk_wstring:
            return "CORBA_wstring"
        if k == idltype.tk_any:
            return "CORBA_any"
        if k == idltype.tk_TypeCode:
            return "CORBA_TypeCode"
        if k == idltype.tk_fixed:
            return "CORBA_fixed_%d_%d" % (t.digits(), t.scale())
        if k == idltype.tk_sequence:
            return "CORBA_sequence_" + self.ident(t.seqType())
        if k in (idltype.tk_value, idltype.tk_value_box):
            self._check_declared(t)
            return self.cname(t.scopedName())
        return self.ctype(t)

    def sig(self, t):
        """A signature of an anonymous type, unique per type (descriptor names)."""
        k = t.kind()
        if k in BASIC:
            return BASIC[k][1]
        if k == idltype.tk_string:
            return "string_%d" % t.bound()
        if k == idltype.tk_wstring:
            return "wstring_%d" % t.bound()
        if k == idltype.tk_fixed:
            return "fixed_%d_%d" % (t.digits(), t.scale())
        if k == idltype.tk_sequence:
            return "seq_%d_%s" % (t.bound(), self.sig(t.seqType()))
        if k == idltype.tk_any:
            return "any"
        if k == idltype.tk_TypeCode:
            return "TypeCode"
        return self.cname(t.scopedName())

    def ctype(self, t):
        k = t.kind()
        if k in BASIC:
            return BASIC[k][0]
        if k == idltype.tk_void:
            return "void"
        if k == idltype.tk_string:
            if t.bound():
                self.tc_expr(t)
            return "CORBA_string"
        if k == idltype.tk_wstring:
            if t.bound():
                self.tc_expr(t)
            return "CORBA_wstring"
        if k == idltype.tk_any:
            return "CORBA_any"
        if k == idltype.tk_TypeCode:
            return "CORBA_TypeCode"
        if k == idltype.tk_Principal:
            raise IdlError(None, "Principal is not mapped by idl2c")
        if k == idltype.tk_fixed:
            self.ensure_fixed(t)
            return "CORBA_fixed_%d_%d" % (t.digits(), t.scale())
        if k == idltype.tk_sequence:
            return self.ensure_seq(t)
        if isinstance(t, idltype.Declared):
            self._check_declared(t)
            if k == idltype.tk_objref and t.scopedName() == ["CORBA", "Object"]:
                return "CORBA_Object"
            if k in (idltype.tk_value, idltype.tk_value_box):
                return self.cname(t.scopedName()) + " *"
            return self.cname(t.scopedName())
        raise IdlError(None, "type kind %d is not mapped by idl2c" % k)

    def tc_expr(self, t):
        k = t.kind()
        if k in BASIC:
            return "TC_" + BASIC[k][0]
        if k == idltype.tk_void:
            return "TC_void"
        if k == idltype.tk_any:
            return "TC_CORBA_any"
        if k == idltype.tk_TypeCode:
            return "TC_CORBA_TypeCode"
        if k in (idltype.tk_string, idltype.tk_wstring):
            base = "string" if k == idltype.tk_string else "wstring"
            if not t.bound():
                return "TC_CORBA_" + base
            return "(&%s)" % self.anon_desc(t, lambda n: self.def_string(t, n, base))
        if k == idltype.tk_fixed:
            self.ensure_fixed(t)
            return "(&%s)" % self.anon_desc(t, lambda n: self.def_fixed(t, n))
        if k == idltype.tk_sequence:
            self.ensure_seq(t)
            return "(&%s)" % self.seq_desc(t)
        if isinstance(t, idltype.Declared):
            self._check_declared(t)
            if k == idltype.tk_objref and t.scopedName() == ["CORBA", "Object"]:
                return "TC_CORBA_Object"
            return "TC_" + self.cname(t.scopedName())
        if k == idltype.tk_Principal:
            raise IdlError(None, "Principal is not mapped by idl2c")
        raise IdlError(None, "type kind %d is not mapped by idl2c" % k)

    # ---------------------------------------------------------------- anonymous types

    def anon_desc(self, t, define, sig=None):
        s = sig or self.sig(t)
        name = self.anon.get(s)
        if name is None:
            name = "%s_tc_%s" % (self.prefix, s)
            self.anon[s] = name
            self.h.out("extern const cdr_type %s;" % name)
            define(name)
        return name

    def def_string(self, t, name, base):
        c = "CORBA_string" if base == "string" else "CORBA_wstring"
        kd = "CDR_K_STRING" if base == "string" else "CDR_K_WSTRING"
        self.common.out("const cdr_type %s = {\n  .kind = %s, .size = sizeof(%s), "
                        ".align = _Alignof(%s),\n  .u.str = { %dU } };"
                        % (name, kd, c, c, t.bound()))

    def def_fixed(self, t, name):
        self.common.out("const cdr_type %s = {\n  .kind = CDR_K_FIXED, .size = sizeof(CORBA_fixed), "
                        ".align = _Alignof(CORBA_fixed),\n  .u.fx = { %d, %d } };"
                        % (name, t.digits(), t.scale()))

    def ensure_fixed(self, t):
        cn = "CORBA_fixed_%d_%d" % (t.digits(), t.scale())
        if cn in self.fixed_c:
            return
        self.fixed_c.add(cn)
        self.h.out("#if !defined(_%s_defined)\n#define _%s_defined 1\n"
                   "typedef CORBA_fixed %s;\n#endif" % (cn, cn, cn))

    def ensure_seq(self, t):
        elem = t.seqType()
        ec = self.ctype(elem)
        etc = self.tc_expr(elem)
        cn = "CORBA_sequence_" + self.ident(elem)
        desc = self.seq_desc(t)
        if cn not in self.seq_c:
            self.seq_c.add(cn)
            self.h.out("#if !defined(_%s_defined)\n#define _%s_defined 1\n"
                       "typedef struct %s {\n"
                       "  CORBA_unsigned_long _maximum;\n"
                       "  CORBA_unsigned_long _length;\n"
                       "  %s *_buffer;\n"
                       "  CORBA_boolean _release;\n"
                       "} %s;\n#endif" % (cn, cn, cn, ec, cn))
            self.h.out("#ifndef %s_allocbuf\n#define %s_allocbuf(l) ((%s *)%s(%s, (l)))\n#endif"
                       % (cn, cn, ec, ALLOCBUF, etc))
            self.h.out("#ifndef %s__alloc\n#define %s__alloc() ((%s *)%s(&%s, 1))\n#endif"
                       % (cn, cn, cn, ALLOC, desc))
        return cn

    def seq_desc(self, t):
        elem = t.seqType()

        def define(name):
            etc = self.tc_expr(elem)
            self.common.out("const cdr_type %s = {\n  .kind = CDR_K_SEQUENCE, .size = sizeof(cdr_seq), "
                            ".align = _Alignof(cdr_seq),\n  .u.seq = { %s, %dU } };"
                            % (name, etc, t.bound()))
        return self.anon_desc(t, define)

    def array_desc(self, elem, sizes):
        """The descriptor of the anonymous array ELEM[sizes...] (an array of
        arrays, outermost dimension first), as a C expression."""
        ec = self.ctype(elem)
        etc = self.tc_expr(elem)
        esig = self.sig(elem)
        inner = etc
        dims = ""
        for i in range(len(sizes) - 1, -1, -1):
            dims = "[%d]" % sizes[i] + dims
            s = "arr_" + "_".join(str(x) for x in sizes[i:]) + "_" + esig

            def define(name, inner=inner, dims=dims, n=sizes[i]):
                self.common.out("const cdr_type %s = {\n  .kind = CDR_K_ARRAY, .size = sizeof(%s%s), "
                                ".align = _Alignof(%s%s),\n  .u.arr = { %s, %dU } };"
                                % (name, ec, dims, ec, dims, inner, n))
            inner = "(&%s)" % self.anon_desc(None, define, s)
        return inner

    def member_tc(self, t, declarator):
        sizes = declarator.sizes()
        if sizes:
            return self.array_desc(t, sizes)
        return self.tc_expr(t)

    def member_decl(self, t, declarator):
        sizes = declarator.sizes()
        ct = self.ctype(t)
        name = self.member_name(declarator.identifier())

        def text(n):
            return "%s%s%s%s" % (ct, "" if ct.endswith("*") else " ", n,
                                 "".join("[%d]" % s for s in sizes))
        d = Decl(text(name))
        if name in CXX_KEYWORDS:
            d.cxx = text("_" + name)
        return d

    # ---------------------------------------------------------------- emission

    def emit_typedef_tag(self, cn):
        if cn not in self.typedefs:
            self.typedefs.add(cn)
            self.h.out("typedef struct %s_type %s;" % (cn, cn))

    def emit_tc_decl(self, cn):
        self.h.out("extern const cdr_type TC_%s_struct;\n"
                   "#define TC_%s ((CORBA_TypeCode)&TC_%s_struct)" % (cn, cn, cn))

    def emit_alloc(self, cn, ret, tc):
        self.h.out("%s *%s__alloc(void);" % (ret, cn))
        self.common.out("%s *%s__alloc(void)\n{\n  return (%s *)%s(%s, 1);\n}"
                        % (ret, cn, ret, ALLOC, tc))

    def check_unmapped(self, d):
        if isinstance(d, idlast.Native):
            self.error(d, "native %s is not mapped by idl2c" % "::".join(d.scopedName()))
        if isinstance(d, (idlast.Interface, idlast.Forward)):
            if d.abstract():
                self.error(d, "abstract interface %s is not mapped by idl2c"
                           % "::".join(d.scopedName()))
            if d.local():
                self.error(d, "local interface %s is not mapped by idl2c"
                           % "::".join(d.scopedName()))

    def check_reserved(self, d):
        """Refuse a definition whose C name the runtime declares itself
        (corbaorb/corba.h: `interface PortableServer::POA` of poa.idl,
        `CORBA::ORB`, `CORBA::TypeCode`...): the two declarations would
        conflict."""
        named = []
        if isinstance(d, idlast.Typedef):
            named = list(d.declarators())
        elif isinstance(d, idlast.Enum):
            named = [d] + list(d.enumerators())
        elif isinstance(d, idlast.DeclRepoId):
            named = [d]
        for x in named:
            n = self.cname(x)
            if n in RUNTIME_NAMES:
                self.error(d, "%s is declared by the runtime (corbaorb/corba.h) as %s: "
                           "a definition of it is not mapped by idl2c"
                           % ("::".join(x.scopedName()), n))

    def check_included(self, d, main):
        """Refuse an included file's construct that idl2c would refuse in
        that file: its header, which FILE.h includes, cannot be made."""
        if d.file() in ("<built in>",):
            return
        if isinstance(d, idlast.Module):
            for x in d.definitions():
                self.check_included(x, main)
            return
        try:
            self.check_unmapped(d)
            self.check_reserved(d)
        except IdlError as e:
            e.message += (" (%s includes %s: idl2c cannot make the header %s.h it needs)"
                          % (os.path.basename(main), os.path.basename(d.file()),
                             os.path.splitext(os.path.basename(d.file()))[0]))
            raise
        if isinstance(d, idlast.Interface):
            for x in d.declarations():
                self.check_included(x, main)

    def walk(self, d):
        if isinstance(d, idlast.Module):
            for x in d.definitions():
                self.walk(x)
            return
        if not d.mainFile():
            return
        self.check_unmapped(d)
        self.check_reserved(d)
        try:
            self.walk_decl(d)
        except IdlError as e:
            if e.node is None:
                e.node = d
            raise

    def walk_decl(self, d):
        if isinstance(d, idlast.Interface):
            self.emit_interface(d)
        elif isinstance(d, idlast.Forward):
            self.emit_objtype(d)
            if d.fullDecl() is None:
                # never defined here (omniidl warns): its TypeCode is made
                # here, weak, as the file that defines the interface (and
                # includes this one: corbaidl.idl's IDLType, ir.idl's)
                # makes it too
                self.emit_objref_tc(d, weak=True)
                self.h.blank()
        elif isinstance(d, idlast.Const):
            self.emit_const(d)
        elif isinstance(d, idlast.Typedef):
            self.emit_typedef(d)
        elif isinstance(d, idlast.Struct):
            self.emit_struct(d, "struct")
        elif isinstance(d, idlast.Exception):
            self.emit_struct(d, "except")
        elif isinstance(d, (idlast.StructForward, idlast.UnionForward)):
            self.emit_typedef_tag(self.cname(d))
            self.h.blank()
        elif isinstance(d, idlast.Union):
            self.emit_union(d)
        elif isinstance(d, idlast.Enum):
            self.emit_enum(d)
        elif isinstance(d, idlast.Value):
            self.emit_value(d)
        elif isinstance(d, idlast.ValueBox):
            self.emit_value_box(d)
        elif isinstance(d, idlast.ValueAbs):
            self.emit_value_abs(d)
        elif isinstance(d, idlast.ValueForward):
            if d.abstract():
                self.h.out("/* abstract valuetype %s (forward) */" % "::".join(d.scopedName()))
            else:
                self.emit_typedef_tag(self.cname(d))
            self.h.blank()
        else:
            self.error(d, "%s is not mapped by idl2c" % type(d).__name__)

    def emit_objtype(self, d):
        cn = self.cname(d)
        if cn in self.objtypes:
            return
        self.objtypes.add(cn)
        self.h.out("#if !defined(_%s_defined)\n#define _%s_defined 1\n"
                   "typedef CORBA_Object %s;\n#endif" % (cn, cn, cn))

    def emit_interface(self, d):
        cn = self.cname(d)
        self.h.out("/* interface %s */" % "::".join(d.scopedName()))
        self.emit_objtype(d)
        self.emit_objref_tc(d)
        self.h.blank()
        for x in d.declarations():
            self.walk(x)
        interfaces.emit_interface(self, d)

    def emit_objref_tc(self, d, weak=False):
        cn = self.cname(d)
        self.emit_tc_decl(cn)
        if weak:
            self.common.out("__attribute__((weak))")
        self.common.out("const cdr_type TC_%s_struct = {\n  .kind = CDR_K_OBJREF, "
                        ".size = sizeof(CORBA_Object), .align = _Alignof(CORBA_Object),\n"
                        "  .name = %s, .repo_id = %s };"
                        % (cn, c_string(d.identifier()), c_string(self.repo_id(d))))
        self.common.blank()

    def emit_const(self, d):
        cn = self.cname(d)
        k = d.constKind()
        v = d.value()
        if k in (idltype.tk_short, idltype.tk_long, idltype.tk_ushort, idltype.tk_ulong,
                 idltype.tk_longlong, idltype.tk_ulonglong, idltype.tk_octet):
            val = c_int(v, k)
        elif k == idltype.tk_boolean:
            val = "CORBA_TRUE" if v else "CORBA_FALSE"
        elif k in (idltype.tk_float, idltype.tk_double, idltype.tk_longdouble):
            val = repr(float(v))
            if "inf" in val or "nan" in val:
                self.error(d, "constant %s is not a finite number" % d.identifier())
            if "e" not in val and "." not in val:
                val += ".0"
            if k == idltype.tk_float:
                val += "F"
            elif k == idltype.tk_longdouble:
                val += "L"
        elif k == idltype.tk_char:
            val = c_char(v)
        elif k == idltype.tk_wchar:
            val = "((CORBA_wchar)0x%XU)" % v
        elif k == idltype.tk_string:
            val = c_string(v)
        elif k == idltype.tk_wstring:
            val = "((const CORBA_wchar *)U" + self.c_wstring(v) + ")"
        elif k == idltype.tk_enum:
            val = self.cname(v)
        elif k == idltype.tk_fixed:
            s = str(v)
            neg = s.startswith("-")
            s = s.lstrip("-+")
            ip, _, fp = s.partition(".")
            digits = (ip + fp).lstrip("0")
            scale = len(fp)
            nd = max(len(digits), scale, 1)
            ds = ([0] * (nd - len(digits))) + [int(c) for c in digits]
            val = ("((CORBA_fixed){ .digits = %d, .scale = %d, .negative = %d, .d = { %s } })"
                   % (nd, scale, 1 if neg and any(ds) else 0, ", ".join(str(x) for x in ds)))
        else:
            self.error(d, "constant %s of this type is not mapped by idl2c" % d.identifier())
        self.h.out("#ifndef %s\n#define %s %s\n#endif" % (cn, cn, val))
        self.h.blank()

    def c_wstring(self, codes):
        r = ['"']
        for c in codes:
            if c < 0x20 or c >= 0x7F or c in (0x22, 0x5C, 0x3F):
                r.append('\\x%X" U"' % c)   # end the literal: no hex run-on
            else:
                r.append(chr(c))
        r.append('"')
        return "".join(r)

    def emit_constr(self, t):
        """Walk a struct/union/enum defined inside a declaration."""
        self.walk(t.decl())

    def emit_typedef(self, d):
        if d.constrType():
            self.emit_constr(d.aliasType())
        at = d.aliasType()
        for decl in d.declarators():
            cn = self.cname(decl)
            sizes = decl.sizes()
            ct = self.ctype(at)
            if sizes:
                tc = self.array_desc(at, sizes)
                dims = "".join("[%d]" % s for s in sizes)
                sdims = "".join("[%d]" % s for s in sizes[1:])
                self.h.out("typedef %s %s%s;" % (ct, cn, dims))
                self.h.out("typedef %s %s_slice%s;" % (ct, cn, sdims))
            else:
                tc = self.tc_expr(at)
                self.h.out("typedef %s %s;" % (ct, cn))
                if self.kind(at) == "array":
                    # an alias of an array typedef has the array's slice
                    self.h.out("typedef %s_slice %s_slice;"
                               % (self.cname(self.unalias(at).scopedName()), cn))
            self.emit_tc_decl(cn)
            self.common.out("const cdr_type TC_%s_struct = {\n  .kind = CDR_K_ALIAS, "
                            ".size = sizeof(%s), .align = _Alignof(%s),\n"
                            "  .name = %s, .repo_id = %s,\n  .u.alias = { %s } };"
                            % (cn, cn, cn, c_string(decl.identifier()),
                               c_string(self.repo_id(decl)), tc))
            if sizes:
                self.emit_alloc(cn, cn + "_slice", "TC_" + cn)
            else:
                kind = self.kind(at)
                if kind in ("struct", "union", "sequence", "any", "except"):
                    self.emit_alloc(cn, cn, "TC_" + cn)
                elif kind == "array":
                    self.emit_alloc(cn, cn + "_slice", "TC_" + cn)
                if kind == "sequence":
                    seq = self.unalias(at)
                    ec = self.ctype(seq.seqType())
                    etc = self.tc_expr(seq.seqType())
                    self.h.out("%s *%s_allocbuf(CORBA_unsigned_long len);" % (ec, cn))
                    self.common.out("%s *%s_allocbuf(CORBA_unsigned_long len)\n{\n"
                                    "  return (%s *)%s(%s, len);\n}" % (ec, cn, ec, ALLOCBUF, etc))
            self.common.blank()
            self.h.blank()

    def emit_struct(self, d, what):
        cn = self.cname(d)
        self.emit_typedef_tag(cn)
        members = []
        for m in d.members():
            with self.at(m):
                if m.constrType():
                    self.emit_constr(m.memberType())
                for decl in m.declarators():
                    members.append((self.member_decl(m.memberType(), decl),
                                    decl.identifier(), self.member_tc(m.memberType(), decl)))
        self.h.out("struct %s_type {" % cn)
        for decl, _, _ in members:
            self.h.out(self.hline("  %s;", decl))
        if not members:
            self.h.out("  CORBA_long _dummy;  /* C has no empty structs */")
        self.h.out("};")
        if what == "except":
            self.h.out("#define ex_%s %s" % (cn, c_string(self.repo_id(d))))
        self.emit_tc_decl(cn)
        if members:
            self.common.out("static const cdr_member %s__members[] = {" % cn)
            for _, ident, tc in members:
                self.common.out("  { %s, %s, offsetof(%s, %s) }," %
                                (c_string(ident), tc, cn, self.member_name(ident)))
            self.common.out("};")
        self.common.out("const cdr_type TC_%s_struct = {\n  .kind = %s, "
                        ".size = sizeof(%s), .align = _Alignof(%s),\n"
                        "  .name = %s, .repo_id = %s,\n  .u.st = { %s, %dU } };"
                        % (cn, "CDR_K_EXCEPT" if what == "except" else "CDR_K_STRUCT",
                           cn, cn, c_string(d.identifier()), c_string(self.repo_id(d)),
                           "%s__members" % cn if members else "NULL", len(members)))
        self.emit_alloc(cn, cn, "TC_" + cn)
        self.common.blank()
        self.h.blank()

    def label_value(self, d, lab, st):
        v = lab.value()
        k = self.unalias(st).kind()
        if isinstance(v, idlast.Enumerator):
            return "%dLL" % v.value(), self.cname(v)
        if k == idltype.tk_boolean:
            return ("1LL", "CORBA_TRUE") if v else ("0LL", "CORBA_FALSE")
        if k == idltype.tk_char:
            return "%dLL" % ord(v), c_char(v)
        if v >= 2 ** 63:
            v -= 2 ** 64   # the label field is int64_t: unsigned long long wraps
        if v == -2 ** 63:
            return "(-9223372036854775807LL - 1)", str(v)
        return "%dLL" % v, str(v)

    def emit_union(self, d):
        cn = self.cname(d)
        if d.constrType():
            self.emit_constr(d.switchType())
        st = d.switchType()
        dct = self.ctype(st)
        dtc = self.tc_expr(self.unalias(st))
        self.emit_typedef_tag(cn)
        branches = []
        cases = []
        default = -1
        for c in d.cases():
            decl = c.declarator()
            with self.at(c):
                if c.constrType():
                    self.emit_constr(c.caseType())
                branches.append(self.member_decl(c.caseType(), decl))
                tc = self.member_tc(c.caseType(), decl)
            for lab in c.labels():
                if lab.default():
                    default = len(cases)
                    cases.append(("0LL", decl.identifier(), tc))
                else:
                    cases.append((self.label_value(d, lab, st)[0], decl.identifier(), tc))
        self.h.out("struct %s_type {\n  %s _d;\n  union {" % (cn, dct))
        for b in branches:
            self.h.out(self.hline("    %s;", b))
        self.h.out("  } _u;\n};")
        self.emit_tc_decl(cn)
        self.common.out("static const cdr_union_case %s__cases[] = {" % cn)
        for lab, ident, tc in cases:
            self.common.out("  { %s, %s, %s, offsetof(%s, _u.%s) }," %
                            (lab, c_string(ident), tc, cn, self.member_name(ident)))
        self.common.out("};")
        self.common.out("const cdr_type TC_%s_struct = {\n  .kind = CDR_K_UNION, "
                        ".size = sizeof(%s), .align = _Alignof(%s),\n"
                        "  .name = %s, .repo_id = %s,\n"
                        "  .u.un = { %s, offsetof(%s, _d), %s__cases, %dU, %d } };"
                        % (cn, cn, cn, c_string(d.identifier()), c_string(self.repo_id(d)),
                           dtc, cn, cn, len(cases), default))
        self.emit_alloc(cn, cn, "TC_" + cn)
        self.common.blank()
        self.h.blank()

    # ---------------------------------------------------------------- values

    def value_local(self, d):
        """A comment naming what a valuetype declares that is local to the
        value (operations, attributes, initializers): not mapped."""
        names = []
        for c in d.contents():
            if isinstance(c, idlast.Operation):
                names.append("operation " + c.identifier())
            elif isinstance(c, idlast.Attribute):
                names += ["attribute " + x.identifier() for x in c.declarators()]
            elif isinstance(c, idlast.Factory):
                names.append("initializer " + c.identifier())
        if names:
            self.h.out("/* %s: local to the value, not mapped by idl2c (docs/idl2c.md, "
                       "\"Values\") */" % ", ".join(names))

    def check_value_member(self, t):
        from .interfaces import has_refs
        if has_refs(self, t, set()):
            raise IdlError(None, "a state member holding object references or anys is not "
                           "mapped by idl2c (a value graph's arena is freed whole)")

    def emit_value_tail(self, d, cn, members, vis, base, flags, custom):
        """The declarations of a valuetype or box CN in FILE.h, its
        cdr_value_type, TypeCode and allocators in FILE-common.c."""
        self.h.out("extern cdr_value_type %s__vt;" % cn)
        self.emit_tc_decl(cn)
        self.h.out("%s *%s__alloc(void);" % (cn, cn))
        self.h.out("%s *%s__alloc_in(const void *graph);" % (cn, cn))
        self.h.out("%s *%s__downcast(const void *value);" % (cn, cn))
        if custom:
            self.h.out("/* custom marshalling: the program defines these two (cdr/value.h) */")
            self.h.out("int %s__marshal(cdr_out *o, const void *value, const cdr_value_type *t);"
                       % cn)
            self.h.out("int %s__unmarshal(cdr_in *i, void *value, const cdr_value_type *t);"
                       % cn)
        c = self.common
        if members:
            c.out("static const cdr_member %s__members[] = {" % cn)
            for name, tc, field in members:
                c.out("  { %s, %s, offsetof(%s, %s) }," % (c_string(name), tc, cn, field))
            c.out("};")
        if vis is not None and members:
            c.out("static const int16_t %s__visibility[] = { %s };"
                  % (cn, ", ".join("CDR_PUBLIC_MEMBER" if v else "CDR_PRIVATE_MEMBER"
                                   for v in vis)))
        fields = [".name = %s" % c_string(d.identifier()),
                  ".repo_id = %s" % c_string(self.repo_id(d))]
        if base:
            fields.append(".base = &%s__vt" % base)
        if flags:
            fields.append(".flags = " + " | ".join(flags))
        if members:
            fields.append(".members = %s__members, .nmembers = %dU" % (cn, len(members)))
        fields.append(".size = sizeof(%s), .align = _Alignof(%s)" % (cn, cn))
        if custom:
            fields.append(".marshal = %s__marshal, .unmarshal = %s__unmarshal" % (cn, cn))
        if vis is not None and members:
            fields.append(".visibility = %s__visibility" % cn)
        c.out("cdr_value_type %s__vt = {\n  %s };" % (cn, ",\n  ".join(fields)))
        c.out("const cdr_type TC_%s_struct = {\n  .kind = CDR_K_VALUE, "
              ".size = sizeof(%s *), .align = _Alignof(%s *),\n"
              "  .name = %s, .repo_id = %s,\n  .u.val = { &%s__vt } };"
              % (cn, cn, cn, c_string(d.identifier()), c_string(self.repo_id(d)), cn))
        c.out("%s *%s__alloc(void)\n{\n  return (%s *)corbaorb_value_new(&%s__vt, NULL);\n}"
              % (cn, cn, cn, cn))
        c.out("%s *%s__alloc_in(const void *graph)\n{\n"
              "  return graph ? (%s *)corbaorb_value_new(&%s__vt, graph) : NULL;\n}"
              % (cn, cn, cn, cn))
        c.out("%s *%s__downcast(const void *value)\n{\n"
              "  return value && cdr_value_type_is_base_of(&%s__vt, "
              "((const cdr_value *)value)->type)\n"
              "    ? (%s *)(void *)(uintptr_t)value : NULL;\n}" % (cn, cn, cn, cn))
        c.blank()
        self.h.blank()
        self.value_types.append(cn)

    def emit_value(self, d):
        cn = self.cname(d)
        what = "::".join(d.scopedName())
        if d.supports():
            self.error(d, "valuetype %s supports interfaces: not mapped by idl2c" % what)
        for x in d.declarations():
            self.walk(x)
        base = None
        inh = [value_full(b) for b in d.inherits()]
        if inh and isinstance(inh[0], idlast.Value):
            base = self.cname(inh[0])
        if d.truncatable() and not base:
            self.error(d, "valuetype %s: truncatable needs a concrete base" % what)
        flags = []
        if d.truncatable():
            flags.append("CDR_VT_TRUNCATABLE")
        if d.custom():
            flags.append("CDR_VT_CUSTOM")
        members = []
        decls = []
        vis = []
        for m in d.statemembers():
            with self.at(m):
                if m.constrType():
                    self.emit_constr(m.memberType())
                self.check_value_member(m.memberType())
                for decl in m.declarators():
                    decls.append(self.member_decl(m.memberType(), decl))
                    members.append((decl.identifier(), self.member_tc(m.memberType(), decl),
                                    self.member_name(decl.identifier())))
                    vis.append(m.memberAccess() == 0)
        self.h.out("/* valuetype %s%s%s */" % (what, (" : " + ("truncatable " if d.truncatable()
                                                              else "") + "::".join(inh[0].scopedName()))
                                              if base else "", " (custom)" if d.custom() else ""))
        self.value_local(d)
        self.emit_typedef_tag(cn)
        self.h.out("struct %s_type {" % cn)
        self.h.out("  %s;" % ("%s _base" % base if base else "cdr_value _hdr"))
        for x in decls:
            self.h.out(self.hline("  %s;", x))
        self.h.out("};")
        self.emit_value_tail(d, cn, members, vis if not all(vis) else None, base, flags,
                             d.custom())

    def emit_value_box(self, d):
        cn = self.cname(d)
        t = d.boxedType()
        with self.at(d):
            if d.constrType():
                self.emit_constr(t)
            self.check_value_member(t)
            ct = self.ctype(t)
            tc = self.tc_expr(t)
        self.h.out("/* valuetype %s (a value box) */" % "::".join(d.scopedName()))
        self.emit_typedef_tag(cn)
        self.h.out("struct %s_type {\n  cdr_value _hdr;\n  %s _value;\n};" % (cn, ct))
        self.emit_value_tail(d, cn, [("_value", tc, "_value")], None, None, ["CDR_VT_BOX"],
                             False)

    def emit_value_abs(self, d):
        what = "::".join(d.scopedName())
        if d.supports():
            self.error(d, "abstract valuetype %s supports interfaces: not mapped by idl2c"
                       % what)
        for x in d.declarations():
            self.walk(x)
        self.h.out("/* abstract valuetype %s: no state, nothing to map; a concrete "
                   "valuetype may inherit it */" % what)
        self.value_local(d)
        self.h.blank()

    def emit_value_registration(self):
        """The registration of the file's value types (their factories are
        libcdr's default: zeroed objects in the decoding graph's arena)."""
        fn = "%s_register_values" % self.prefix
        self.h.out("/* Register this file's value types with R (NULL: cdr_registry_global()),\n"
                   " * which receivers look repository IDs up in.  Done for the global registry\n"
                   " * when the program starts; CDR_OK or cdr_registry_add()'s error. */")
        self.h.out("int %s(cdr_registry *r);" % fn)
        self.h.blank()
        c = self.common
        c.out("int %s(cdr_registry *r)\n{\n  if (!r)\n    r = cdr_registry_global();\n"
              "  int rc = CDR_OK;" % fn)
        for cn in self.value_types:
            c.out("  if (rc == CDR_OK)\n    rc = cdr_registry_add(r, &%s__vt);" % cn)
        c.out("  return rc;\n}")
        c.out("static void %s__init(void) __attribute__((constructor));" % fn)
        c.out("static void %s__init(void)\n{\n  (void)%s(NULL);\n}" % (fn, fn))
        c.blank()

    def emit_enum(self, d):
        cn = self.cname(d)
        names = [e.identifier() for e in d.enumerators()]
        self.h.out("typedef enum {\n%s\n} %s;" %
                   (",\n".join("  " + self.cname(e) for e in d.enumerators()), cn))
        self.emit_tc_decl(cn)
        self.common.out("_Static_assert(sizeof(%s) == 4, \"an enum is 32 bits (CORBA_enum)\");" % cn)
        self.common.out("static const char *const %s__names[] = { %s };"
                        % (cn, ", ".join(c_string(n) for n in names)))
        self.common.out("const cdr_type TC_%s_struct = {\n  .kind = CDR_K_ENUM, "
                        ".size = sizeof(%s), .align = _Alignof(%s),\n"
                        "  .name = %s, .repo_id = %s,\n  .u.en = { %dU, %s__names } };"
                        % (cn, cn, cn, c_string(d.identifier()), c_string(self.repo_id(d)),
                           len(names), cn))
        self.common.blank()
        self.h.blank()


def value_full(d):
    """A valuetype's full declaration (a forward declaration resolved)."""
    if isinstance(d, idlast.ValueForward) and d.fullDecl() is not None:
        return d.fullDecl()
    return d


def included_files(tree):
    files = []
    for d in tree.declarations():
        f = d.file()
        if not d.mainFile() and f != "<built in>" and f != tree.file() and f not in files:
            files.append(f)
    return files


def generate(tree, basename):
    ctx = Context(tree, basename)
    guard = "IDL2C_%s_H" % c_ident(basename).upper()
    ctx.h.out("/* %s.h - generated by idl2c from %s: do not edit. */" % (basename, os.path.basename(tree.file())))
    ctx.h.out("#ifndef %s\n#define %s\n" % (guard, guard))
    ctx.h.out("#include <corbaorb/corba.h>")
    for f in included_files(tree):
        ctx.h.out("#include \"%s.h\"" % os.path.splitext(os.path.basename(f))[0])
    ctx.h.out("\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n")
    ctx.common.out("/* %s-common.c - generated by idl2c from %s: do not edit. */"
                   % (basename, os.path.basename(tree.file())))
    ctx.common.out("#include <stddef.h>\n#include <stdint.h>\n#include \"%s.h\"\n" % basename)
    for w, what in ((ctx.stubs, "stubs"), (ctx.skels, "skels")):
        w.out("/* %s-%s.c - generated by idl2c from %s: do not edit. */"
              % (basename, what, os.path.basename(tree.file())))
        w.out("#include \"%s.h\"\n" % basename)
    ctx.check_c_names(tree)
    interfaces.begin(ctx)
    for d in tree.declarations():
        ctx.walk(d)
    # after the walk: a use of an included file's unmapped type is reported
    # at the use first
    for d in tree.declarations():
        if not d.mainFile():
            ctx.check_included(d, tree.file())
    interfaces.end(ctx)
    if ctx.value_types:
        ctx.emit_value_registration()
    ctx.h.out("#ifdef __cplusplus\n}\n#endif\n#endif")
    return ctx


def write_all(outdir, files):
    """Write each (name, text) to a temporary file in OUTDIR, then rename them
    all: no half-written output."""
    tmps = []
    try:
        for name, text in files:
            fd, tmp = tempfile.mkstemp(prefix="." + name + ".", dir=outdir)
            tmps.append((tmp, os.path.join(outdir, name)))
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(text)
            os.chmod(tmp, 0o644 & ~_umask())
        for tmp, final in tmps:
            os.rename(tmp, final)
    except OSError as e:
        for tmp, _ in tmps:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        sys.stderr.write("idl2c: %s: %s\n" % (e.filename or outdir, e.strerror))
        sys.exit(1)


def _umask():
    m = os.umask(0)
    os.umask(m)
    return m


def run(tree, args):
    outdir = os.environ.get("IDL2C_OUTDIR", ".")
    for a in args:
        if a.startswith("o="):
            outdir = a[2:]
    basename = os.path.splitext(os.path.basename(tree.file()))[0]
    try:
        ctx = generate(tree, basename)
    except IdlError as e:
        n = e.node
        where = "%s:%d: " % (n.file(), n.line()) if n is not None else ""
        sys.stderr.write("%serror: %s\n" % (where, e.message))
        sys.exit(1)
    if not os.path.isdir(outdir):
        sys.stderr.write("idl2c: %s: not a directory\n" % outdir)
        sys.exit(1)
    write_all(outdir, [(basename + ".h", ctx.h.text()),
                       (basename + "-common.c", ctx.common.text()),
                       (basename + "-stubs.c", ctx.stubs.text()),
                       (basename + "-skels.c", ctx.skels.text())])
