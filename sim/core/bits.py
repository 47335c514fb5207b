"""Bit counting for the games' bitmask sets (routes, boards, hands), as single CPU
instructions.

A First Ascent hex set is an int64 bitmask, and the engine and its bots count and walk such
sets at nearly every action. Written in Python, a count is a loop over the set bits and the
index of a bit a chain of halvings. LLVM has both as intrinsics (`ctpop`, `cttz`), which
numba's public `intrinsic` extension reaches in two lines each. The results are the same
integers for every int64 (the tests compare them with the loops).
"""
from llvmlite import ir
from numba import types
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, x):
    """The number of set bits of x as an int64 (two's complement for a negative x)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@intrinsic
def trailing_zeros(typingctx, x):
    """The index of the lowest set bit of x as an int64 (64 for x = 0)."""
    if not isinstance(x, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen
