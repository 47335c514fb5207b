"""Compiled functions called through a named cell, so that the code calling them is cached.

numba cannot cache a function that holds a function value as a constant: the constant is the
callee's address in this process. A search bot holds two such values: its game's search and
its rollout bot (First Ascent's, its agents and the engine). So every process compiled the bot
again, 0.12-0.17 s of each warm start of a search bot.

A cell is one pointer-sized slot per compiled callee. Its symbol is entered in LLVM's table of
this process's symbols (llvmlite's add_symbol), and the caller's code declares it as an
external global. numba's cached object code then links to this process's cell when it loads,
and the caller reads the callee's address from the cell at each call. `bind` stores the
address, in each process, before the caller is compiled or loaded.

A cell never bound holds 0, so a call through it raises numba's "function address is null"
instead of jumping to nowhere. The cell is entered in the symbol table when it is declared,
so cached code that names it always links.

    name = function_cell(searching, key)            # at import: declares, compiles nothing
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

_CELLS = {}     # symbol -> (its ctypes slot, the numba type a read of it has, copies or None)


def function_cell(dispatcher, signature, copies=None):
    """The symbol of the cell for `dispatcher` compiled for `signature` (a numba signature,
    return type included), declared in this process if not yet. A read of the cell
    (called_through) is a first-class function value of that signature, or a tuple of `copies`
    of it (a kernel's policy slots). The name is the same in every process: it is part of the
    caller's cached code."""
    one_type = types.FunctionType(signature)
    value_type = one_type if copies is None else types.UniTuple(one_type, copies)
    described = f"{dispatcher.py_func.__module__}.{dispatcher.py_func.__qualname__} " \
                f"{signature} {copies}"
    name = "ascent_cell_" + hashlib.sha256(described.encode()).hexdigest()[:24]
    if name not in _CELLS:
        slot = ctypes.c_void_p(0)
        llvm.add_symbol(name, ctypes.addressof(slot))
        _CELLS[name] = (slot, value_type, copies)
    return name


def bind(name, function_value):
    """Store `function_value`'s address (sim.core.policies.compiled_value's answer) in cell
    `name`, for this process. A function compiled for another signature than the cell's is
    refused: called through the cell, its arguments would be read wrongly."""
    slot, value_type, copies = _CELLS[name]
    expected = (value_type if copies is None else value_type.dtype).signature
    compiled = function_value.signature()
    if tuple(compiled.args) != tuple(expected.args) or \
            compiled.return_type != expected.return_type:
        raise TypeError(f"function cell {name} is for {expected}, not {compiled}")
    slot.value = function_value.__wrapper_address__()


@intrinsic
def called_through(typingctx, name):
    """The function value in cell `name` (a string constant), or the tuple of its copies."""
    if not isinstance(name, types.StringLiteral):
        return None     # numba asks again with the literal
    if name.literal_value not in _CELLS:
        raise KeyError(f"no function cell {name.literal_value} in this process")
    _, value_type, copies = _CELLS[name.literal_value]
    one_type = value_type if copies is None else value_type.dtype

    def codegen(context, builder, signature, args):
        cell = builder.module.globals.get(name.literal_value)
        if cell is None:    # declared once a module, or LLVM would rename the second
            cell = ir.GlobalVariable(builder.module, ir.IntType(8).as_pointer(),
                                     name.literal_value)
            cell.linkage = "external"
        address = builder.load(cell)
        value = cgutils.create_struct_proxy(one_type)(context, builder)
        value.c_addr = address
        value.py_addr = cgutils.get_null_value(address.type)
        value.jit_addr = cgutils.get_null_value(address.type)
        one = value._getvalue()
        if copies is None:
            return one
        return context.make_tuple(builder, value_type, [one] * copies)
    return value_type(name), codegen
