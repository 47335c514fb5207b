"""How the hot per-action game code is compiled.

numba's runtime (NRT) counts references to every array a compiled function holds, with an
atomic increment when the function takes it and a decrement when it lets go, and its
refcount-pruning pass removes only some of those pairs (not across loops and early
returns). A First Ascent game makes tens of thousands of such calls: perf put a fifth of a
greedy game's time in NRT_incref/NRT_decref. Functions that never allocate need none of
it, so they are compiled with the runtime off.

`njit_noalloc` is `njit(cache=True)` with numba's `_nrt=False` target option (a private
option, used the same way in numba's own refcount tests). numba then refuses, at compile
time, any allocation inside such a function and any call from it into a function that
allocates, so the guarantee is checked, not assumed. Work memory comes from buffers the
caller allocated once per game (the engine's scratch, a policy's `work`).

Its functions are also compiled once per argument types, not once per constant argument
(a literal boolean excepted, see `_widened`). numba types a constant at a call site
(`ask(..., D_CHALKBAG, 2)`, `ch(st, t, seat, CH_MAX)`) as a literal, and a plain dispatcher
compiles a separate specialization for every distinct literal: First Ascent's `ask` was
compiled 21 times and `ch` 20 times for one game with random bots, each copy then linked and
optimised again in every caller. LLVM inlines and folds the constants of small callees
anyway, so the copies bought little and cost a large part of the first run's compile time
(results/BENCHMARKS.md, "From an empty cache to the first game").

Nor do they get numba's C-callable wrapper, which only a function used as a first-class
function value needs (the bots, compiled through sim/core/policies.compiled_on_use, and a
search's agents, `first_class=True`). numba otherwise generates one for every function, and
every caller links it in and optimises it again.

Nor is a callee's own finished code optimised across functions, nor turned into machine code
before Python calls it, nor given numba's Python entry point before then (see
CalleeCodeLibrary).
"""
import ctypes
import gc
import itertools
import warnings
import weakref

import llvmlite.binding as llvm
import llvmlite.ir as llvm_ir
from llvmlite.binding import Linkage
from numba import _dynfunc, config, njit, types
from numba.core import compiler, compiler_machinery, lowering, typed_passes
from numba.core.callwrapper import PyCallWrapper
from numba.core.codegen import CPUCodeLibrary, JITCodeLibrary, JITCPUCodegen
from numba.core.compiler_lock import global_compiler_lock
from numba.core.cpu import CPUContext
from numba.core.registry import CPUDispatcher


def _defines(module, name):
    """Whether an LLVM module holds the code of the function `name`, not just its declaration."""
    return any(f.name == name and not f.is_declaration for f in module.functions)


def _make_copies_private(module):
    """Make the copies numba linked into `module` ("linkonce_odr": one definition for the whole
    process) private to it; returns their names."""
    copies = []
    for function in module.functions:
        if not function.is_declaration and function.linkage == Linkage.linkonce_odr:
            function.linkage = "internal"
            copies.append(function.name)
    return copies


def compiled_specializations():
    """(dispatcher, compile result) for every specialization of every numba CPU function this
    process holds, compiled here or loaded from the cache: for tools that read the code. A
    cold start freezes what its compile made (sim/core/compiling.py, collector_paused), and
    gc.get_objects leaves frozen objects out: they are listed unfrozen, then everything is
    frozen again (also what was not before: it only leaves later collections shorter)."""
    frozen = gc.get_freeze_count()
    if frozen:
        gc.unfreeze()
    try:
        objects = gc.get_objects()
    finally:
        if frozen:
            gc.freeze()
    for obj in objects:
        # by its type: isinstance() asks a weak proxy among the objects for its referent,
        # which may be gone
        if issubclass(type(obj), CPUDispatcher):
            for result in list(obj.overloads.values()):
                yield obj, result


class _SetsWaitingEnvironments:
    """After numba puts a library's machine code in the JIT, the environments that waited for
    their global to be there (_set_env) are set."""

    def _finalize_specific(self):
        super()._finalize_specific()
        _set_waiting_environments(self._codegen)


class EntryCodeLibrary(_SetsWaitingEnvironments, JITCodeLibrary):
    """numba's compiled code of a function whose own code runs: a kernel, a bot, a search's
    agents, anything called from Python. numba links into it a copy of everything it calls and
    optimises the lot. The copies LLVM did not inline are "linkonce_odr", one definition for
    the whole process: the JIT may bind a call to one of them to another definition of that
    name it loaded before, such as the callee's own code, which is not optimised across
    functions (CalleeCodeLibrary): a cold Ascension stair-builder run played 36% slower in the
    process that compiled it. So once optimised, the copies become private to this code, which
    then runs what it was optimised with, compiled in this process or loaded from the cache
    alike. Code that links this function in gets the copies as numba shares them."""

    _private_copies = ()        # a library loaded from the cache: its copies came private

    def _optimize_final_module(self):
        super()._optimize_final_module()
        self._private_copies = _make_copies_private(self._final_module)

    @classmethod
    def _unserialize(cls, codegen, state):
        # numba rebuilds every cached library through the class of the libraries it creates
        name, kind, data = state
        if kind == CalleeCodeLibrary.CACHED_AS:
            return CalleeCodeLibrary.from_cache(codegen, name, data)
        if kind == CalleeCodeLibrary.CACHED_WITH_ENTRY:
            # numba's object code, and its Python entry point, which is not in the code its
            # callers link: the JIT is told it is there, as numba tells it of the rest
            object_code, shared, entries = data
            library = super()._unserialize(codegen, (name, "object", (object_code, shared)))
            codegen._engine._defined_symbols.update(entries)
            return library
        return super()._unserialize(codegen, state)

    def _get_module_for_linking(self):
        self._ensure_finalized()
        if self._shared_module is not None or not self._private_copies:
            return super()._get_module_for_linking()
        own = self._final_module
        shared = own.clone()
        for name in self._private_copies:
            shared.get_function(name).linkage = "linkonce_odr"
        self._final_module = shared          # what numba shares is made from it
        try:
            return super()._get_module_for_linking()
        finally:
            self._final_module = own


def cheap_module_pipeline(codegen):
    """numba's cheap module pipeline (the one it runs before its refcount pruning; at numba's
    default settings it inlines only what must be inlined) as (manager, builder), or None on a
    numba whose pass managers differ (0.60 returns one legacy manager)."""
    try:
        manager, builder = codegen._module_pass_manager(
            loop_vectorize=codegen._loopvect, slp_vectorize=False, opt=codegen._opt_level,
            cost="cheap")
    except (AttributeError, TypeError, ValueError):
        return None
    return manager, builder


class CalleeCodeLibrary(_SetsWaitingEnvironments, JITCodeLibrary):
    """numba's compiled code of a function that runs inside other compiled code (njit_noalloc,
    not a function value). numba finishes every function's code by linking in everything it
    calls and running LLVM's whole module pipeline over the lot. For a callee that work was
    thrown away: each caller links in its code and runs the same pipeline over it again, and
    only an entry point's code runs. A game's call chain is several levels deep, so the engine
    was optimised once per level: 10 of the 36 s First Ascent took from an empty cache
    (results/BENCHMARKS.md). A callee's code gets numba's cheap pipeline instead; the whole
    one runs on its callers' code (and on numba's other functions, which keep numba's default).
    Called from Python (tests, the single-game API), a callee runs that code: optimised
    function by function as numba lowers it, its calls not inlined. Where numba offers no
    cheap pipeline (cheap_module_pipeline), a callee gets the whole one, as before.

    Nor is its code turned into machine code until Python calls it (a test, the single-game
    API). numba did that for every function it finished, and a callee's code holds a copy of
    everything it calls: each level of a call chain generated the machine code of the levels
    under it again (5-7 s of First Ascent's 32 s in one process). Its callers link its code,
    not its machine code, so numba's cache keeps a callee's code as LLVM bitcode (CACHED_AS),
    and numba's Python entry point to it is a stand-in (_first_call_compiles) until called.

    Nor is that entry point's code generated before the first call from Python (CalleeLower):
    numba wrote one for every function, every caller linked it in as a copy and LLVM worked
    over it again before dropping it (about 4 of the 31 CPU seconds of a cold First Ascent
    `mcts-tuned` run, results/BENCHMARKS.md). It joins the callee's own code when that is put
    in the JIT, so numba's cache then keeps it with the machine code (_cache_machine_code)."""

    CACHED_AS = "ascent-callee-bitcode"
    CACHED_WITH_ENTRY = "ascent-callee-object"     # numba's "object", and the entry's name
    _machine_code_pending = False
    dispatcher = None           # a weak reference to the dispatcher that holds it (add_overload)
    python_entry = None         # (context, fndesc, env) for its Python entry point

    def _optimize_final_module(self):
        pipeline = cheap_module_pipeline(self._codegen)
        if pipeline is None:
            return super()._optimize_final_module()
        manager, builder = pipeline
        manager.run(self._final_module, builder)

    def _finalize_final_module(self):
        globals_ = self._final_module.global_variables
        if any(g.name.startswith(".numba.unresolved$") for g in globals_):
            # recursion through another callee: numba's runtime linker binds the call when the
            # callee's own code is in the JIT, as numba puts it there (numba's way, then, with
            # the Python entry point numba's get_executable looks up)
            self._link_python_entry()
            return super()._finalize_final_module()
        # numba's, up to the JIT (which generate_machine_code does, if ever)
        self._finalize_dynamic_globals()
        self._verify_declare_only_symbols()
        self._finalized = True
        self._machine_code_pending = True

    def generate_machine_code(self):
        """Put this code in the JIT as machine code (once). Its copies of its callees become
        private to it first, as an entry point's do, so that no two definitions of one name
        meet in the JIT whichever of them comes first; its callers still link the copies as
        numba shares them."""
        with global_compiler_lock:
            if not self._machine_code_pending:
                return
            # pending until done: a first call interrupted here (Ctrl-C, a MemoryError) left
            # the callee marked done with no code, and the next call jumped to address 0
            if self._final_module in self._codegen._engine._ee._modules:
                # the interrupted call had put the code in the JIT: what numba does next
                self._finalize_specific()
            else:
                shared = self._get_module_for_linking()
                if shared is self._final_module:
                    self._shared_module = shared.clone()
                _make_copies_private(self._final_module)
                self._link_python_entry()        # after the callers' copy was taken
                self._dynamic_globals = []          # numba's step counts them again
                CPUCodeLibrary._finalize_final_module(self)
            self._machine_code_pending = False

    def _link_python_entry(self):
        """numba's Python entry point to this function (its create_cpython_wrapper, which
        CalleeLower left out), linked into the code that goes into the JIT. Not optimised by
        LLVM's passes: it unpacks Python objects, and its calls into the C API cost the rest."""
        if self.python_entry is None:
            return
        context, fndesc, env = self.python_entry
        if _defines(self._final_module, fndesc.llvm_cpython_wrapper_name):
            return                      # numba wrote it: a generator's, or linked already
        dispatcher = self.dispatcher() if self.dispatcher is not None else None
        # nogil as its dispatcher was asked, compiled here or loaded from the cache alike
        release_gil = bool(dispatcher is not None and dispatcher.targetoptions.get("nogil"))
        module = context.create_module("wrapper")
        callee = llvm_ir.Function(module, context.call_conv.get_function_type(
            fndesc.restype, fndesc.argtypes), fndesc.llvm_func_name)
        PyCallWrapper(context, module, callee, fndesc, env, call_helper=None,
                      release_gil=release_gil).build()
        self._final_module.link_in(llvm.parse_assembly(str(module)))

    def _python_entries(self):
        """Its Python entry point, if its machine code has it and the code its callers link
        does not (numba's cache would not tell the JIT of it): read from the code, so that an
        interrupted first call cannot leave it out."""
        if self.python_entry is None:
            return ()
        name = self.python_entry[1].llvm_cpython_wrapper_name
        if _defines(self._final_module, name) and \
                not _defines(self._get_module_for_linking(), name):
            return (name,)
        return ()

    def get_pointer_to_function(self, name):
        self._ensure_finalized()
        self.generate_machine_code()
        return super().get_pointer_to_function(name)

    def serialize_using_object_code(self):
        self._ensure_finalized()
        if self._machine_code_pending:
            return (self.name, self.CACHED_AS, self._final_module.as_bitcode())
        name, kind, data = super().serialize_using_object_code()
        entries = self._python_entries()
        if entries:
            return (name, self.CACHED_WITH_ENTRY, (*data, entries))
        return (name, kind, data)

    @classmethod
    def from_cache(cls, codegen, name, bitcode):
        library = cls(codegen, name)
        library.enable_object_caching()
        library._final_module = llvm.parse_bitcode(bitcode)
        library._finalize_final_module()
        return library


# every CPU function numba compiles in this process, ours or not, is an entry point unless
# compiled as a callee (CalleeCompiler)
JITCPUCodegen._library_class = EntryCodeLibrary

_numba_get_executable = CPUContext.get_executable
_numba_set_env = JITCPUCodegen.set_env
_stand_in_names = itertools.count()


def _get_executable(context, library, fndesc, env):
    """numba's Python entry point to a compiled function; for a callee without machine code
    yet, a stand-in that generates it on the first call."""
    if isinstance(library, CalleeCodeLibrary):
        if library.python_entry is None:
            library.python_entry = (context, fndesc, env)
        library._ensure_finalized()
        if library._machine_code_pending:
            # callers compiled in this process link its code, which may read its environment
            # (a print, an objmode block): its global takes it once some code that holds it is
            # in the JIT (_set_env)
            _set_env(library.codegen, context.get_env_name(fndesc), env)
            return _first_call_compiles(context, library, fndesc, env)
    return _numba_get_executable(context, library, fndesc, env)


def _first_call_compiles(context, library, fndesc, env):
    """A C function with the signature of numba's Python wrapper, (closure, args, kwargs),
    that passes the call to the Python object in its global: first a function that generates
    the callee's machine code and numba's own entry point to it, then that entry point."""
    codegen = library.codegen
    name = f"ascent.first_call.{next(_stand_in_names)}"
    module = llvm_ir.Module(name)
    pointer = llvm_ir.IntType(8).as_pointer()
    target = llvm_ir.GlobalVariable(module, pointer, name=name + ".target")
    target.initializer = llvm_ir.Constant(pointer, None)
    signature = llvm_ir.FunctionType(pointer, [pointer, pointer, pointer])
    py_call = llvm_ir.Function(module, signature, "PyObject_Call")
    stand_in = llvm_ir.Function(module, signature, name)
    builder = llvm_ir.IRBuilder(stand_in.append_basic_block())
    builder.ret(builder.call(py_call, [builder.load(target), stand_in.args[1],
                                       stand_in.args[2]]))
    compiled = llvm.parse_assembly(str(module))
    with global_compiler_lock:
        codegen._engine.add_module(compiled)
        codegen._engine.finalize_object()
        slot = ctypes.c_void_p.from_address(
            codegen._engine.get_global_value_address(target.name))
        address = codegen._engine.get_function_address(name)
    entry = []
    # looked up now, not at the first call: a thread that first calls it while the module is
    # still being imported would wait for the import lock
    python_module = fndesc.lookup_module()
    short_name = fndesc.qualname.split(".")[-1]
    doc = f"compiled wrapper for {fndesc.qualname!r}"

    def first_call(*args, **kwargs):
        with global_compiler_lock:
            if not entry:
                # numba's get_executable, with the module looked up above
                code = library.get_pointer_to_function(fndesc.llvm_cpython_wrapper_name)
                if not code:
                    raise RuntimeError(f"{fndesc.qualname}: numba's JIT holds no machine code "
                                       f"for it")
                entry.append(_dynfunc.make_function(python_module, short_name, doc, code, env,
                                                    (library,)))
                _set_env(codegen, context.get_env_name(fndesc), env)
                slot.value = id(entry[0])           # later calls go to it directly
                _cache_machine_code(library)
        return entry[0](*args, **kwargs)
    slot.value = id(first_call)
    return _dynfunc.make_function(python_module, short_name, doc, address, env,
                                  (library, first_call, entry, compiled))


def _cache_machine_code(library):
    """Save a callee Python has called into numba's cache again, now with its machine code:
    Python calls it in later processes too (the single-game API: Ascension's `ascent replay`
    generated 0.5 s of it at every start). A save that fails costs only that: a warning."""
    dispatcher = library.dispatcher() if library.dispatcher is not None else None
    cache = getattr(dispatcher, "_cache", None)
    if cache is None or library.has_dynamic_globals:
        return          # numba does not cache code with a ctypes pointer, and said so once
    for signature, compiled in list(dispatcher.overloads.items()):
        if compiled.library is library:
            try:
                cache.save_overload(signature, compiled)
            except Exception as exc:        # noqa: BLE001 - the call itself has its code
                warnings.warn(f"numba's cache: could not save {library.name} with its machine "
                              f"code ({exc}); it is generated again in the next process",
                              stacklevel=3)       # at the line that called the callee


def _set_env(codegen, env_name, env):
    """numba's set_env, which writes the environment's address into its global in the JIT; a
    global not there yet (a callee without machine code) waits for it."""
    if codegen._engine.is_symbol_defined(env_name):
        _numba_set_env(codegen, env_name, env)
    else:
        codegen.__dict__.setdefault("_waiting_environments", {})[env_name] = env


def _set_waiting_environments(codegen):
    waiting = codegen.__dict__.get("_waiting_environments")
    for env_name in [n for n in waiting or () if codegen._engine.is_symbol_defined(n)]:
        _numba_set_env(codegen, env_name, waiting.pop(env_name))


CPUContext.get_executable = _get_executable
JITCPUCodegen.set_env = _set_env


@compiler_machinery.register_pass(mutates_CFG=False, analysis_only=False)
class UseCalleeCodeLibrary(compiler_machinery.LoweringPass):
    """Give the function a CalleeCodeLibrary before numba's lowering makes it a plain one."""

    _name = "use_callee_code_library"

    def __init__(self):         # abstract in numba's CompilerPass: every pass defines it
        compiler_machinery.LoweringPass.__init__(self)

    def run_pass(self, state):
        if state.library is None:
            state.library = CalleeCodeLibrary(state.targetctx.codegen(),
                                              state.func_id.func_qualname)
            state.library.enable_object_caching()      # as numba's lowering does: the cache
        return True


class CalleeLower(lowering.Lower):
    """numba's lowering, which leaves a callee's Python entry point for its first call from
    Python (CalleeCodeLibrary._link_python_entry); a generator keeps numba's."""

    def create_cpython_wrapper(self, release_gil=False):
        if self.genlower or not isinstance(self.library, CalleeCodeLibrary):
            return super().create_cpython_wrapper(release_gil)
        return None


@compiler_machinery.register_pass(mutates_CFG=True, analysis_only=False)
class CalleeNativeLowering(typed_passes.NativeLowering):
    """numba's native lowering through CalleeLower."""

    _name = "callee_native_lowering"

    @property
    def lowering_class(self):
        return CalleeLower


class CalleeCompiler(compiler.CompilerBase):
    """numba's nopython pipeline, lowering into a CalleeCodeLibrary."""

    def define_pipelines(self):
        pipeline = compiler.DefaultPassBuilder.define_nopython_pipeline(self.state)
        pipeline.add_pass_after(UseCalleeCodeLibrary, typed_passes.AnnotateTypes)
        pipeline.passes = [(CalleeNativeLowering, text) if kind is typed_passes.NativeLowering
                           else (kind, text) for kind, text in pipeline.passes]
        pipeline.finalize()
        return [pipeline]


class OneSpecializationPerTypes(CPUDispatcher):
    """A CPU dispatcher that compiles a call from other compiled code with the arguments'
    plain types: literal ints (and strings) are widened before the specialization is chosen,
    so every call site with the same argument types shares one compiled version."""

    keeps_flags = True
    optimised_alone = False

    def __init__(self, py_func, locals=None, targetoptions=None, pipeline_class=None):
        # decided from the options and the class, so that a dispatcher rebuilt from a pickle
        # (a Dask worker) decides the same
        if pipeline_class is None:
            function_value = not (targetoptions or {}).get("no_cfunc_wrapper", False)
            entry = function_value or self.optimised_alone
            pipeline_class = compiler.Compiler if entry else CalleeCompiler
        super().__init__(py_func, locals=locals, targetoptions=targetoptions,
                         pipeline_class=pipeline_class)

    def add_overload(self, cres):
        if isinstance(cres.library, CalleeCodeLibrary):
            cres.library.dispatcher = weakref.ref(self)     # where its machine code is saved
        super().add_overload(cres)

    def get_call_template(self, args, kws):
        args = tuple(_widened(a, self.keeps_flags) for a in args)
        kws = {k: _widened(v, self.keeps_flags) for k, v in kws.items()}
        return super().get_call_template(args, kws)


class OneSpecializationPerTypesAndFlags(OneSpecializationPerTypes):
    """The same, with literal booleans widened too (njit_noalloc(one_copy=True)). A class, not
    a flag set on the dispatcher, so that a dispatcher rebuilt from a pickle keeps it."""

    keeps_flags = False


class OptimisedAlone(OneSpecializationPerTypes):
    """OneSpecializationPerTypes, whose own code also gets LLVM's whole pipeline
    (njit_noalloc(optimised_alone=True))."""

    optimised_alone = True


class OptimisedAloneOneCopy(OneSpecializationPerTypesAndFlags):
    """OneSpecializationPerTypesAndFlags, optimised alone too."""

    optimised_alone = True


DISPATCHERS = {(False, False): OneSpecializationPerTypes,       # (one_copy, optimised_alone)
               (True, False): OneSpecializationPerTypesAndFlags,
               (False, True): OptimisedAlone, (True, True): OptimisedAloneOneCopy}


def _widened(argument_type, keeps_flags=True):
    """A literal's plain type, except a literal boolean (unless `keeps_flags` is off): a flag
    chooses a mode (a milestone attempt or a climb, a trial or the real move), and the copy
    compiled for each mode drops the other mode's branches from the hot loops. With its flags
    widened too, the All-In Ascent planner ran 10.5% slower side by side
    (benchmarks/compare_commits.py)."""
    if keeps_flags and isinstance(argument_type, types.BooleanLiteral):
        return argument_type
    return types.unliteral(argument_type)


def compile_noalloc(fn, first_class=False, one_copy=False, optimised_alone=False, cache=True,
                    **options):
    """The dispatcher of njit_noalloc; `first_class` keeps the C-callable wrapper a function
    value needs; `one_copy` widens literal booleans too; `optimised_alone` gives the function's
    own code LLVM's whole pipeline (see njit_noalloc); cache=False leaves numba's cache out (a
    test that reads the code compiled)."""
    if config.DISABLE_JIT:                 # as numba's own njit does under NUMBA_DISABLE_JIT
        return fn
    targetoptions = dict(options, nopython=True, _nrt=False)
    if not first_class:
        targetoptions["no_cfunc_wrapper"] = True
    targetoptions.setdefault("boundscheck", None)
    kind = DISPATCHERS[bool(one_copy), bool(optimised_alone)]
    dispatcher = kind(py_func=fn, locals={}, targetoptions=targetoptions)
    if cache:
        dispatcher.enable_caching()
    return dispatcher


def njit_noalloc(*args, **options):
    """njit(cache=True) without numba's runtime, one specialization per argument types: the
    function may not allocate.

    Use as `@njit_noalloc` or `@njit_noalloc(inline=..., first_class=..., one_copy=...,
    optimised_alone=...)`; first_class=True for a function that is handed around as a function
    value (a search's agents); one_copy=True for a function whose flags pick only a few cheap
    branches, so that a copy per literal flag would cost more compile time than its branches
    cost at play; optimised_alone=True for a hot callee whose loop LLVM compiles better when its
    own code is optimised before its callers' (CalleeCodeLibrary): the Ascension staircase
    search ran 5% faster so. Its compile then costs what numba's default costs."""
    if len(args) == 1 and callable(args[0]) and not options:
        return compile_noalloc(args[0])
    if args:
        raise TypeError("njit_noalloc takes no signature: it compiles on first use")
    return lambda fn: compile_noalloc(fn, **options)


@njit_noalloc
def copy_into(dest, src):
    """dest[:] = src for two vectors of one length that do not overlap (it copies forward),
    without numba's shape check: that check formats its error message, so every compiled
    function with an array-to-array assignment linked in numba's string formatting, which a
    first run then compiled (All-In Ascent's MCTS bots: 2 s, a third of the specializations
    the search compiled)."""
    if dest.shape[0] != src.shape[0]:
        raise ValueError("copy_into: the two arrays differ in length")
    for i in range(src.shape[0]):
        dest[i] = src[i]
