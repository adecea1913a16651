# interfaces.py - the interface parts of idl2c (stub: declarations of the
# interface types only; operations, stubs and skeletons come from the
# runtime's owner).  The API this module implements is described at the top
# of driver.py.


def begin(ctx):
    """Called once before the walk: write prologues into ctx.stubs and
    ctx.skels (after the driver's own first lines)."""
    pass


def emit_interface(ctx, node):
    """Called for each interface of the main file, after the driver wrote
    its object type, its TypeCode and its nested type declarations."""
    for c in node.callables():
        ctx.error(c, "operations and attributes are not mapped yet")


def end(ctx):
    """Called once after the walk."""
    pass
