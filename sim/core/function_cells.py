"""Compiled functions called through a named cell, so that the code calling them is cached.

numba cannot cache a function that holds a function value as a constant: the constant is the
callee's address in this process. A search bot holds two such values: its game's search and
its rollout bot (First Ascent's, its agents and the engine). So every process compiled the bot
again, 0.10-0.14 s of each warm start of a search bot.

A cell is one pointer-sized slot per compiled callee. Its symbol is entered in LLVM's table of
this process's symbols (llvmlite's add_symbol), and the caller's code declares it as an
external global. numba's cached object code then links to this process's cell when it loads,
and the caller reads the callee's address from the cell at each call. `bind` stores the
address, in each process, before the caller is compiled or loaded. The cell is entered in the
symbol table when it is declared, so cached code that names it always links.

A cell never bound holds 0. Called from Python, a call through it raises numba's "function
address is null"; called from a kernel, through its C wrapper, the error cannot be raised (a
serial kernel gets 0, a silent action; a parallel one hangs). So a bot checks that its cells
are bound before it is compiled or loaded (check_bound, through compiled_on_use's `cells`).

    signature = return_type(*key)
    name = function_cell(searching, signature)      # at import: declares, compiles nothing
    ...
    def search_policy(ctx):                         # njit(cache=True)
        return called_through(name)(ctx)
    ...
    bind(name, compiled_value(searching, key))      # each process, before the bot loads
"""
import ctypes
import hashlib

from llvmlite import binding as llvm
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_CELLS = {}     # symbol -> _Cell


class _Cell:
    __slots__ = ("slot", "dispatcher", "value_type", "copies")

    def __init__(self, dispatcher, value_type, copies):
        self.slot = ctypes.c_void_p(0)
        self.dispatcher = dispatcher
        self.value_type = value_type
        self.copies = copies

    @property
    def one_type(self):
        """The function type of one copy (the value type itself without `copies`)."""
        return self.value_type if self.copies is None else self.value_type.dtype

    @property
    def signature(self):
        return self.one_type.signature


def function_cell(dispatcher, signature, copies=None):
    """The symbol of the cell for `dispatcher` compiled for `signature` (a numba signature,
    return type included), declared in this process if not yet. A read of the cell
    (called_through) is a first-class function value of that signature, or a tuple of `copies`
    of it (a kernel's policy slots). The name is the same in every process: it is part of the
    caller's cached code. It is made of the function's module and qualified name, so two
    functions made by one enclosing function (closures) cannot both have a cell: the second
    is refused."""
    one_type = types.FunctionType(signature)
    value_type = one_type if copies is None else types.UniTuple(one_type, copies)
    function = dispatcher.py_func
    described = f"{function.__module__}.{function.__qualname__} {signature} {copies}"
    name = "ascent_cell_" + hashlib.sha256(described.encode()).hexdigest()[:24]
    cell = _CELLS.get(name)
    if cell is None:
        cell = _CELLS[name] = _Cell(dispatcher, value_type, copies)
        llvm.add_symbol(name, ctypes.addressof(cell.slot))
    elif cell.dispatcher is not dispatcher:
        raise ValueError(f"function cell {name}: {function.__module__}.{function.__qualname__} "
                         f"names two functions (closures of one function?); a cell needs a "
                         f"function its module and name find alone")
    return name


def bind(name, function_value):
    """Store `function_value`'s address (sim.core.policies.compiled_value's answer: an
    overload of the cell's own function, for the cell's signature) in cell `name`, for this
    process. Another function's, or one compiled for another signature, is refused: called
    through the cell, it would be the wrong callee, or its arguments would be read wrongly."""
    cell = _CELLS[name]
    compiled = function_value.signature()
    if tuple(compiled.args) != tuple(cell.signature.args) or \
            compiled.return_type != cell.signature.return_type:
        raise TypeError(f"function cell {name} is for {cell.signature}, not {compiled}")
    if not any(function_value.cres is overload
               for overload in cell.dispatcher.overloads.values()):
        function = cell.dispatcher.py_func
        raise TypeError(f"function cell {name} is for {function.__module__}."
                        f"{function.__qualname__}, not another function")
    cell.slot.value = function_value.__wrapper_address__()


def check_bound(names, caller):
    """Raise unless every cell of `names` holds an address: `caller` (a name for the message)
    would otherwise call through a null address, which a kernel cannot report."""
    unbound = [name for name in names if not _CELLS[name].slot.value]
    if unbound:
        described = ", ".join(f"{_CELLS[n].dispatcher.py_func.__qualname__} ({n})"
                              for n in unbound)
        raise RuntimeError(f"{caller}: its function cells for {described} are not bound in "
                           f"this process; bind them before it is compiled or loaded")


@intrinsic
def called_through(typingctx, name):
    """The function value in cell `name` (a string constant), or the tuple of its copies."""
    if not isinstance(name, types.StringLiteral):
        return None     # numba asks again with the literal
    if name.literal_value not in _CELLS:
        raise KeyError(f"no function cell {name.literal_value} in this process")
    cell = _CELLS[name.literal_value]
    value_type, copies, one_type = cell.value_type, cell.copies, cell.one_type

    def codegen(context, builder, signature, args):
        declared = builder.module.globals.get(name.literal_value)
        if declared is None:    # once a module: llvmlite refuses a second of one name
            declared = ir.GlobalVariable(builder.module, ir.IntType(8).as_pointer(),
                                         name.literal_value)
            declared.linkage = "external"
        address = builder.load(declared)
        value = cgutils.create_struct_proxy(one_type)(context, builder)
        value.c_addr = address
        value.py_addr = cgutils.get_null_value(address.type)
        value.jit_addr = cgutils.get_null_value(address.type)
        one = value._getvalue()
        if copies is None:
            return one
        return context.make_tuple(builder, value_type, [one] * copies)
    return value_type(name), codegen
