"""What compiled code links in, for checks that a search compiles nothing it does not use."""
import gc

from numba.core.registry import CPUDispatcher

# numba's string code (concatenation, str, repr) in a function's mangled name: an
# array-to-array slice assignment in code compiled with numba's runtime links it in for its
# shape check's message, and a first run compiled it into every search (sim/core/jit.py's
# copy_into)
STRING_CODE = "7cpython7unicode"


def string_code_in(modules):
    """(how many compiled specializations the functions defined in `modules` have, the names
    of numba's string functions their code holds, linked copies included)."""
    compiled, found = 0, set()
    for obj in gc.get_objects():
        # by its type: isinstance() asks a weak proxy among the objects for its referent,
        # which may be gone
        if not issubclass(type(obj), CPUDispatcher) or obj.py_func.__module__ not in modules:
            continue
        for result in obj.overloads.values():
            compiled += 1
            code = result.library._get_module_for_linking()
            found |= {f.name for f in code.functions
                      if not f.is_declaration and STRING_CODE in f.name}
    return compiled, found
