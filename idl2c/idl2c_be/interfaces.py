# interfaces.py - the interface parts of idl2c: per interface, the client
# stubs (FILE-stubs.c), the skeletons (FILE-skels.c) and their declarations
# in FILE.h, by the OMG IDL-to-C language mapping (the names ORBit2
# implemented).  The API between the driver and this module is described at
# the top of driver.py.
#
# For an interface Mod::I (C name Mod_I) with operations and attributes,
# inherited ones included (bases first, depth first, each base once):
#   FILE.h      Ret Mod_I_op(Mod_I _obj, params..., CORBA_Environment *_ev);
#               (Mod_I__get_a / Mod_I__set_a for attribute a; an operation
#               of a base B is also declared as Mod_I_op, as the mapping
#               lets a derived interface's name call it)
#               POA_Mod_I__epv  { void *_private; one function pointer per
#                                 own operation and attribute accessor,
#                                 named op, _get_a, _set_a; an op named
#                                 by a C keyword is _op, as members are }
#               POA_Mod_I__vepv { PortableServer_ServantBase__epv *_base_epv;
#                                 POA_Mod_B__epv *Mod_B_epv per base;
#                                 POA_Mod_I__epv *Mod_I_epv; }
#               POA_Mod_I       { void *_private; POA_Mod_I__vepv *vepv; }
#               POA_Mod_I__init, POA_Mod_I__fini
#   -stubs.c    each stub: an operation table (corbaorb_operation: name,
#               oneway, result and parameter TypeCodes and modes, the raises
#               clause's TypeCodes) and one corbaorb_invoke() call with the
#               addresses of the parameters.
#   -skels.c    per operation a glue function (the epv call with the decoded
#               arguments) and a dispatch function (an iiop_op_fn calling
#               corbaorb_dispatch()); the interface's iiop_interface (its
#               repository ID, operations, and every base's ID for _is_a)
#               as a corbaorb_class; POA_Mod_I__init/__fini.
#
# Parameter passing (the mapping's rules; "variable" as ctx.is_variable):
#   kind                     in               inout      out        return
#   basic, enum              T                T *        T *        T
#   string, wstring          const T_char *   T *        T *        T
#   object reference         Mod_J            Mod_J *    Mod_J *    Mod_J
#   TypeCode                 CORBA_TypeCode   T *        T *        T
#   struct, union, fixed     const T *        T *        T * / T ** (variable)
#                                                                   T / T * (variable)
#   sequence, any            const T *        T *        T **       T *
#   array                    const T          T          T / T_slice ** (variable)
#                                                                   T_slice *
#   valuetype, value box     const Mod_V *    Mod_V **   Mod_V **   Mod_V *
#                            (our extension: docs/idl2c.md "Values")
# The runtime's ARGS are the addresses of the parameters' C values:
# &param for the kinds passed by value, param itself for the others.

from omniidl import idlast, idltype

MODE = {0: "CORBAORB_IN", 1: "CORBAORB_OUT", 2: "CORBAORB_INOUT"}
IN, OUT, INOUT = 0, 1, 2


class Param:
    def __init__(self, name, t, direction):
        self.name = name
        self.type = t
        self.direction = direction


class Op:
    """An operation or attribute accessor as the stubs and skeletons see it."""

    def __init__(self, owner, node, name, ret, params, oneway, raises):
        self.owner = owner      # the idlast.Interface that declares it
        self.node = node
        self.name = name        # on the wire and in the epv: op, _get_a, _set_a
        self.ret = ret          # idltype (void included)
        self.params = params    # [Param]
        self.oneway = oneway
        self.raises = raises    # [idlast.Exception]


def full_decl(i):
    """The interface I names: a forward declaration's full one, and the
    interface a typedef names (`typedef I J; interface K : J {}` is legal
    IDL: K inherits from I)."""
    if isinstance(i, idlast.Declarator) and i.alias() is not None:
        t = i.alias().aliasType().unalias()
        if isinstance(t, idltype.Declared):
            i = t.decl()
    if isinstance(i, idlast.Forward):
        return i.fullDecl()
    return i


def ancestors(node):
    """The bases of NODE, each once, depth first (a base before the bases
    that inherit from it come... in declaration order, bases of bases
    first)."""
    seen = []

    def visit(i):
        for b in i.inherits():
            b = full_decl(b)
            if isinstance(b, idlast.Interface) and b not in seen:
                visit(b)
                seen.append(b)

    visit(node)
    return seen


def ops_of(ctx, iface):
    ops = []
    for c in iface.callables():
        if isinstance(c, idlast.Operation):
            if c.contexts():
                ctx.error(c, "operation %s: context clauses are not mapped by idl2c"
                          % c.identifier())
            params = [Param(ctx.member_name(p.identifier()), p.paramType(), p.direction())
                      for p in c.parameters()]
            ops.append(Op(iface, c, c.identifier(), c.returnType(), params, c.oneway(),
                          [full_decl(r) for r in c.raises()]))
        elif isinstance(c, idlast.Attribute):
            for d in c.declarators():
                a = d.identifier()
                ops.append(Op(iface, c, "_get_" + a, c.attrType(), [], False,
                              [full_decl(r) for r in getattr(c, "getRaises", lambda: [])()]))
                if not c.readonly():
                    ops.append(Op(iface, c, "_set_" + a, VOID, [Param("value", c.attrType(), IN)],
                                  False,
                                  [full_decl(r) for r in getattr(c, "setRaises", lambda: [])()]))
    return ops


VOID = None


def _void():
    from omniidl import idltype
    return idltype.Base(idltype.tk_void)


# ---------------------------------------------------------------- C types

def is_void(ctx, t):
    return ctx.kind(t) == "void"


def slice_of(ctx, t):
    return ctx.ctype(t) + "_slice"


def param_decl(ctx, p, header=False):
    """The C declaration of parameter P; HEADER: in a FILE.h prototype,
    where a name C++ reads as a keyword gets a `_` (a prototype's
    parameter names bind nothing: C callers and definitions are as
    before)."""
    from .driver import CXX_KEYWORDS
    t, k, n = p.type, ctx.kind(p.type), p.name
    if header and n in CXX_KEYWORDS:
        n = "_" + n
    ct = ctx.ctype(t)
    var = ctx.is_variable(t)
    if k == "array":
        if p.direction == OUT and var:
            return "%s **%s" % (slice_of(ctx, t), n)
        return ("const %s %s" if p.direction == IN else "%s %s") % (ct, n)
    if k == "value":     # "Mod_V *", typedefs resolved
        ct = ctx.ctype(ctx.unalias(t))
        return ("const %s%s" if p.direction == IN else "%s*%s") % (ct, n)
    if p.direction == IN:
        if k in ("basic", "enum", "objref", "typecode"):
            return "%s %s" % (ct, n)
        if k == "string":
            return "const CORBA_char *%s" % n
        if k == "wstring":
            return "const CORBA_wchar *%s" % n
        return "const %s *%s" % (ct, n)
    if p.direction == INOUT:
        return "%s *%s" % (ct, n)
    # out
    if k in ("struct", "union", "sequence", "any", "except") and var:
        return "%s **%s" % (ct, n)
    return "%s *%s" % (ct, n)


def ret_type(ctx, t):
    k = ctx.kind(t)
    if k == "void":
        return "void "
    if k == "array":
        return slice_of(ctx, t) + " *"
    if k == "value":
        return ctx.ctype(ctx.unalias(t))
    ct = ctx.ctype(t)
    if k in ("struct", "union", "sequence", "any") and ctx.is_variable(t):
        return ct + " *"
    return ct + " "


def arg_addr(ctx, p):
    """What the stub puts in ARGS for P."""
    k = ctx.kind(p.type)
    if p.direction == IN and k in ("basic", "enum", "objref", "typecode", "string", "wstring",
                                   "value"):
        return "(void *)&%s" % p.name
    return "(void *)%s" % p.name


def glue_arg(ctx, p, i):
    """How the skeleton's glue passes ARGS[i] to the epv function."""
    t, k = p.type, ctx.kind(p.type)
    a = "_a[%d]" % i
    if p.direction == IN:
        if k == "array":
            return "(const %s *)%s" % (slice_of(ctx, t), a)
        if k == "string":
            return "*(const CORBA_char **)%s" % a
        if k == "wstring":
            return "*(const CORBA_wchar **)%s" % a
        if k in ("basic", "enum", "objref", "typecode"):
            return "*(%s *)%s" % (ctx.ctype(t), a)
        if k == "value":
            return "*(const %s*)%s" % (ctx.ctype(ctx.unalias(t)), a)
        return "(const %s *)%s" % (ctx.ctype(t), a)
    if k == "array":
        if p.direction == OUT and ctx.is_variable(t):
            return "(%s **)%s" % (slice_of(ctx, t), a)
        return "(%s *)%s" % (slice_of(ctx, t), a)
    decl = param_decl(ctx, p)
    star = decl.index("*")
    return "(%s)%s" % (decl[:star].replace("const ", "") + decl[star:decl.rindex("*") + 1], a)


def proto(ctx, fname, op, first, header=False):
    ps = [first] + [param_decl(ctx, p, header) for p in op.params] + ["CORBA_Environment *_ev"]
    return "%s%s(%s)" % (ret_type(ctx, op.ret), fname, ", ".join(ps))


# ---------------------------------------------------------------- tables

def flags(ctx, t):
    """The CORBAORB_F_* of T: what the runtime would work out from its
    TypeCode on every call, given once here."""
    k = ctx.kind(t)
    f = ["CORBAORB_F_KNOWN"]
    if ctx.is_variable(t):
        f.append("CORBAORB_F_VAR")
    if k == "objref":
        f += ["CORBAORB_F_PTR", "CORBAORB_F_OBJREF"]
    elif k in ("string", "wstring", "typecode", "value"):
        f.append("CORBAORB_F_PTR")
    elif k == "array":
        f.append("CORBAORB_F_ARRAY")
    if k != "objref" and has_refs(ctx, t, set()):
        f.append("CORBAORB_F_REFS")
    if has_values(ctx, t, set()):
        f.append("CORBAORB_F_VALUES")
    return " | ".join(f)


def may_hold(ctx, t, kinds, seen):
    """Whether a value of T may hold a value of one of KINDS (kind names,
    e.g. "value" or "objref"), through sequences, arrays, struct, union and
    exception members; SEEN (ids of declarations already walked) ends
    recursion through recursive types."""
    t = ctx.unalias(t)
    k = ctx.kind(t)
    if k in kinds:
        return True
    if k == "sequence":
        return may_hold(ctx, t.seqType(), kinds, seen)
    if k == "array":
        return may_hold(ctx, t.decl().alias().aliasType(), kinds, seen)
    if k in ("struct", "union", "except"):
        decl = t.decl()
        if isinstance(decl, (idlast.StructForward, idlast.UnionForward)):
            decl = decl.fullDecl()
        if id(decl) in seen:
            return False
        seen.add(id(decl))
        if k == "union":
            return any(may_hold(ctx, c.caseType(), kinds, seen) for c in decl.cases())
        return any(may_hold(ctx, m.memberType(), kinds, seen) for m in decl.members())
    return False


def has_values(ctx, t, seen):
    """Whether a value of T may hold values (valuetypes; an any may)."""
    return may_hold(ctx, t, ("value", "any"), seen)


def has_refs(ctx, t, seen):
    """Whether a value of T may hold object references (an any may)."""
    return may_hold(ctx, t, ("objref", "any"), seen)


def emit_optable(ctx, w, tag, op):
    """The static corbaorb_operation _ORB_op_TAG for OP into writer W."""
    if op.params:
        w.out("static const corbaorb_param _ORB_p_%s[] = {\n%s\n};" % (tag, ",\n".join(
            "  { %s, %s, %s }" % (ctx.tc_expr(p.type), MODE[p.direction], flags(ctx, p.type))
            for p in op.params)))
    if op.raises:
        w.out("static const CORBA_TypeCode _ORB_x_%s[] = { %s };" % (tag, ", ".join(
            "TC_" + ctx.cname(e) for e in op.raises)))
    ret = "NULL" if is_void(ctx, op.ret) else ctx.tc_expr(op.ret)
    w.out("static const corbaorb_operation _ORB_op_%s = {\n  \"%s\", %d, %s, %s, %d, %s, %d,\n  %s };"
          % (tag, op.name, 1 if op.oneway else 0, ret,
             ("_ORB_p_%s" % tag) if op.params else "NULL", len(op.params),
             ("_ORB_x_%s" % tag) if op.raises else "NULL", len(op.raises),
             "0" if is_void(ctx, op.ret) else flags(ctx, op.ret)))


def check_op(ctx, op):
    if op.oneway:
        if not is_void(ctx, op.ret) or any(p.direction != IN for p in op.params):
            ctx.error(op.node, "oneway operation %s must return void and take only in "
                      "parameters" % op.name)
        if op.raises:
            ctx.error(op.node, "oneway operation %s cannot raise user exceptions" % op.name)


def epv_field(ctx, op):
    """The epv member of OP: its name, `_` before a C keyword (`register`
    gives `_register`, as struct members do); the wire name stays OP's."""
    return ctx.member_name(op.name)


def stub_name(ctx, cn, op):
    if op.name.startswith("_get_") or op.name.startswith("_set_"):
        return "%s_%s" % (cn, op.name)    # Mod_I__get_a
    return "%s_%s" % (cn, op.name)


# ---------------------------------------------------------------- the API

def begin(ctx):
    ctx.stubs.out("#include <string.h>\n")
    ctx.skels.out("#include <string.h>\n")


# The stubs call the runtime through names no parameter can have (an IDL
# parameter's C name never begins with `_`): a parameter named `memset` or
# `corbaorb_invoke` would hide the function.  Each wrapper is written once,
# before the first stub that calls it (clang warns of an unused one).
_WRAPPERS = {
    "_ORB_invoke": "static inline void _ORB_invoke(CORBA_Object o, const corbaorb_operation *op, "
                   "void *ret,\n                               void *const *args, "
                   "CORBA_Environment *ev)\n{\n  corbaorb_invoke(o, op, ret, args, ev);\n}\n",
    "_ORB_zero": "static inline void _ORB_zero(void *p, size_t n)\n{\n  memset(p, 0, n);\n}\n",
}


def wrapper(ctx, name):
    done = ctx.__dict__.setdefault("_idl2c_wrappers", set())
    if name not in done:
        done.add(name)
        ctx.stubs.out(_WRAPPERS[name])


def emit_interface(ctx, node):
    global VOID
    if VOID is None:
        VOID = _void()
    cn = ctx.cname(node)
    bases = ancestors(node)
    own = ops_of(ctx, node)
    allops = []
    for b in bases:
        allops.extend(ops_of(ctx, b))
    allops.extend(own)
    names = {}
    for op in allops:
        check_op(ctx, op)
        if op.name in names and names[op.name] is not op.owner:
            ctx.error(node, "interface %s inherits two operations named %s"
                      % (node.identifier(), op.name))
        names[op.name] = op.owner
    for op in allops:  # anonymous types' declarations first
        for p in op.params:
            ctx.ctype(p.type)
            ctx.tc_expr(p.type)
        if not is_void(ctx, op.ret):
            ctx.ctype(op.ret)
            ctx.tc_expr(op.ret)

    # ---- FILE.h: client prototypes
    h = ctx.h
    first = "%s _obj" % cn
    for op in allops:
        h.out("%s;" % proto(ctx, stub_name(ctx, cn, op), op, first, True))
    # ---- FILE.h: the server's types
    h.out("typedef struct POA_%s__epv {\n  void *_private;" % cn)
    from .driver import CXX_KEYWORDS, Decl
    for op in own:
        f = epv_field(ctx, op)
        field = Decl(proto(ctx, "(*%s)" % f, op, "PortableServer_Servant _servant", True))
        if f in CXX_KEYWORDS:   # `(*_delete)` for C++, `(*delete)` for C
            field.cxx = proto(ctx, "(*_%s)" % f, op, "PortableServer_Servant _servant", True)
        h.out(ctx.hline("  %s;", field))
    h.out("} POA_%s__epv;" % cn)
    h.out("typedef struct POA_%s__vepv {\n  PortableServer_ServantBase__epv *_base_epv;" % cn)
    for b in bases:
        bn = ctx.cname(b)
        h.out("  POA_%s__epv *%s_epv;" % (bn, bn))
    h.out("  POA_%s__epv *%s_epv;\n} POA_%s__vepv;" % (cn, cn, cn))
    h.out("typedef struct POA_%s {\n  void *_private;\n  POA_%s__vepv *vepv;\n} POA_%s;"
          % (cn, cn, cn))
    h.out("void POA_%s__init(PortableServer_Servant servant, CORBA_Environment *ev);" % cn)
    h.out("void POA_%s__fini(PortableServer_Servant servant, CORBA_Environment *ev);" % cn)
    h.blank()

    # ---- FILE-stubs.c
    s = ctx.stubs
    s.out("/* interface %s */" % "::".join(node.scopedName()))
    for op in allops:
        tag = "%s_%s" % (cn, op.name)
        wrapper(ctx, "_ORB_invoke")
        if not is_void(ctx, op.ret):
            wrapper(ctx, "_ORB_zero")
        emit_optable(ctx, s, tag, op)
        s.out("%s\n{" % proto(ctx, stub_name(ctx, cn, op), op, first))
        if op.params:
            s.out("  void *_args[%d] = { %s };"
                  % (len(op.params), ", ".join(arg_addr(ctx, p) for p in op.params)))
        args = "_args" if op.params else "NULL"
        if is_void(ctx, op.ret):
            s.out("  _ORB_invoke(_obj, &_ORB_op_%s, NULL, %s, _ev);\n}" % (tag, args))
        else:
            rt = ret_type(ctx, op.ret).strip()
            s.out("  %s _ret;\n  _ORB_zero(&_ret, sizeof _ret);" % rt)
            s.out("  _ORB_invoke(_obj, &_ORB_op_%s, &_ret, %s, _ev);\n  return _ret;\n}"
                  % (tag, args))
        s.blank()

    # ---- FILE-skels.c
    k = ctx.skels
    k.out("/* interface %s */" % "::".join(node.scopedName()))
    for op in allops:
        tag = "%s_%s" % (cn, op.name)
        emit_optable(ctx, k, tag, op)
        on = ctx.cname(op.owner)
        call = "((POA_%s *)_s)->vepv->%s_epv->%s(_s%s, _ev)" % (
            cn, on, epv_field(ctx, op), "".join(", " + glue_arg(ctx, p, i) for i, p in enumerate(op.params)))
        k.out("static void _ORB_glue_%s(PortableServer_Servant _s, void **_a, void *_r, "
              "CORBA_Environment *_ev)\n{" % tag)
        if not op.params:
            k.out("  (void)_a;")
        if is_void(ctx, op.ret):
            k.out("  (void)_r;\n  %s;\n}" % call)
        else:
            k.out("  *(%s*)_r = %s;\n}" % (ret_type(ctx, op.ret), call))
        k.out("static int _ORB_d_%s(void *_s, iiop_request *_q, cdr_in *_i, cdr_out *_o)\n{\n"
              "  return corbaorb_dispatch(_s, _q, _i, _o, &_ORB_op_%s, _ORB_glue_%s);\n}"
              % (tag, tag, tag))
        k.blank()
    if allops:
        k.out("static const iiop_operation _ORB_iops_%s[] = {\n%s\n};" % (cn, ",\n".join(
            "  { \"%s\", _ORB_d_%s_%s }" % (op.name, cn, op.name) for op in allops)))
    from .driver import c_string
    k.out("static const char *const _ORB_bases_%s[] = { %s };" % (cn, ", ".join(
        [c_string(ctx.repo_id(b)) for b in bases] + ["NULL"])))
    k.out("static const corbaorb_class _ORB_class_%s = {\n  { %s, %s, %d, _ORB_bases_%s } };"
          % (cn, c_string(ctx.repo_id(node)), ("_ORB_iops_%s" % cn) if allops else "NULL",
             len(allops), cn))
    k.out("void POA_%s__init(PortableServer_Servant servant, CORBA_Environment *ev)\n{\n"
          "  corbaorb_servant_init(servant, &_ORB_class_%s, ev);\n}" % (cn, cn))
    k.out("void POA_%s__fini(PortableServer_Servant servant, CORBA_Environment *ev)\n{\n"
          "  corbaorb_servant_fini(servant, ev);\n}" % cn)
    k.blank()


def end(ctx):
    pass
