"""What compiled code links in, for checks that a search compiles nothing it does not use."""
from sim.core.jit import compiled_specializations

# numba's string code (concatenation, str, repr) in a function's mangled name: an
# array-to-array slice assignment in code compiled with numba's runtime links it in for its
# shape check's message, and a first run compiled it into every search (sim/core/jit.py's
# copy_into)
STRING_CODE = "7cpython7unicode"


def string_code_in(modules):
    """(how many compiled specializations the functions defined in `modules` have, the names
    of numba's string functions their code holds, linked copies included)."""
    compiled, found = 0, set()
    for dispatcher, result in compiled_specializations():
        if dispatcher.py_func.__module__ in modules:
            compiled += 1
            code = result.library._get_module_for_linking()
            found |= {f.name for f in code.functions
                      if not f.is_declaration and STRING_CODE in f.name}
    return compiled, found


def linked_functions(dispatcher):
    """The names of the functions defined in the code of each of `dispatcher`'s compiled
    specializations, with what numba linked into it (callees called by name; a function
    called by address is only declared there)."""
    found = set()
    for result in dispatcher.overloads.values():
        code = result.library._get_module_for_linking()
        found |= {f.name for f in code.functions if not f.is_declaration}
    return found
