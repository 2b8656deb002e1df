"""Kernel Tuner's interface on kjit: change a script's import to run it on kjit.

    from kjit.kernel_tuner import tune_kernel, run_kernel   # was: from kernel_tuner import ...

tune_kernel() and run_kernel() take every parameter of Kernel Tuner 1.5.0's
functions, in the same order with the same defaults, and return what Kernel
Tuner returns: tune_kernel() the results (a list of dicts: the parameters,
"time" in ms and "times", compile and verification times, metrics; a
configuration that failed has "__error__" instead of times, a
CompilationFailedConfig or RuntimeFailedConfig, str subclasses as Kernel
Tuner's) and the env dict; run_kernel() the arguments after the run (NumPy
arrays and scalars).

What runs: every configuration is compiled by NVRTC through kjit's store
(with brute_force and random_sample all in parallel from the start: the
first two on threads, the others by compile processes, one per further CPU,
into the store, from which the measuring thread loads each binary; a
binary compiled before, by any process, is loaded, not compiled; each
measured as it is ready, the results in the strategy's order), verified
against answer= or verify= (the comparison runs while the GPU measures), and timed by
kjit's measurement (CUPTI, else CUDA events); Kernel Tuner's NVMLObserver asking for nvml_energy or
nvml_power gets kjit's NVML measurement of energy per launch and average power
(objective="nvml_energy" then picks the best by it), and asking for
temperature, core_freq or mem_freq NVML's readings taken every millisecond
while the configuration is benchmarked, averaged (gr_voltage and
power_readings raise UnsupportedParameter). A kernel that breaks the GPU's
context (an illegal address: every later CUDA call of the process fails)
stops the tuning with a kjit.Error naming its configuration; with cache=
what was measured is kept and that configuration recorded as failed, so a
run with the cache goes on past it. The inputs are read as
Kernel Tuner 1.5.0 reads them (kernel_source, restrictions, problem_size,
grid divisors, block_size_names, defines, metrics, objective, verify) and bad
ones refused with its exception types (ValueError, TypeError) and its
warnings; compiler_options go to NVRTC, but for -I and --include-path (the
kernel's include folders, whose headers enter the binary key) and -arch (the
GPU's own, or UnsupportedParameter); the cache file is read and written in
its format, with its checks of device, kernel, problem size and
tune_params. A parameter kjit cannot honour raises UnsupportedParameter (a
ValueError) naming it; nothing is silently ignored. Without a GPU the call raises kjit.NoGPUError (a
RuntimeError, as Kernel Tuner's missing CUDA) after checking its arguments.

Strategies. brute_force (the default) and random_sample run here, as above,
with strategy_options max_fevals, time_limit (s) and fraction: random_sample
takes max_fevals configurations, else the fraction of the space (default
0.1, rounded up), as Kernel Tuner's does; brute_force all, or a random choice
of max_fevals or the fraction (Kernel Tuner's refuses both). Kernel Tuner's
strategies that kjit has a strategy of the same kind for run that one (a
kjit.Search in this process: it proposes each configuration, which is
compiled and evaluated here, and its objective told back; one at a time,
but for the genetic algorithm's generation, compiled side by side as the
loop's configurations are; kjit-tune(1) describes each strategy):

    simulated_annealing  annealing
    genetic_algorithm    genetic
    pso                  pso
    dual_annealing       dual_annealing (after scipy's, which Kernel Tuner wraps)
    bayes_opt, skopt     surrogate (a model of the time from the results, as
                         kjit maps them in a T1 spec's Search.Name)

kjit's own names (hybrid, annealing, genetic, surrogate, exhaustive,
random, ...) are taken too. Their strategy_options: max_fevals (the budget of
evaluations; without one the search runs until the strategy ends or the space
is spent) and time_limit (s); the seed is tune_kernel's seed (default 1, so a
search repeats). A strategy's own options that kjit's strategy has too are
passed to it (as a setting of kjit.Space.search(), which checks the values; an option
not given keeps kjit's setting, which is not always Kernel Tuner's default):

    simulated_annealing  T, T_min, alpha, maxiter (evaluations per temperature)
    genetic_algorithm    popsize, maxiter (generations), mutation_chance,
                         method (single_point, two_point, uniform,
                         disruptive_uniform; kjit's default is uniform)
    pso                  popsize, maxiter, w, c1, c2
    bayes_opt            popsize (the random samples before the model:
                         surrogate's num_initial)
    skopt                num_initial (None: kjit's setting)

(mutation_chance 0 is kjit's default, a mutation in 1 of as many children as
there are parameters, where Kernel Tuner's 0 mutates every child.) The others
set the internals of Kernel Tuner's implementation, which kjit's does not
have: dual_annealing's method, bayes_opt's covariancekernel,
covariancelengthscale, method and samplingmethod, skopt's learner, acq_func,
lie_strategy, kappa, batch_size and skopt_kwargs; each is named in a
UserWarning and kjit's settings are used; constraint_aware=True is what kjit's
strategies do (they propose valid configurations only), False is warned of
likewise, as is searchspace_construction_options. With kjit's own names
the options are kjit's (kjit.strategies() lists them). x0 (a start
configuration) and an option the strategy does not have raise
UnsupportedParameter. These strategies need the
restrictions as strings (Kernel Tuner's expressions, which kjit evaluates
as Python does) and tune_params values of one type each (int, float, bool or
str); a restriction that is a function raises UnsupportedParameter (brute_force
and random_sample take one). The objective told to the strategy is the
result's (lower is better; with objective_higher_is_better, 1 / value, 0 a
failure), a failed configuration a failure; a value below 0 raises
UnsupportedParameter.

Kernel Tuner's other strategies raise UnsupportedParameter naming them:
minimize, basinhopping (scipy's local optimisers from a start point),
diff_evo, firefly_algorithm, greedy_mls, ordered_greedy_mls, mls, greedy_ils
(local search from starts; kjit's hybrid searches the best's neighbours
with kicks, jumps and restarts), pyatf_strategies, hybrid_vndx,
adaptive_tabu_greywolf, nsga2 and nsga3 (multi-objective).
"""
import collections
import contextlib
import datetime
import inspect
import itertools
import json
import logging
import math
import numbers
import os
import pathlib
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from concurrent import futures
from concurrent.futures import ThreadPoolExecutor, as_completed

import kjit
from kjit import _types, tuning

__all__ = ["tune_kernel", "run_kernel", "UnsupportedParameter", "ErrorConfig", "InvalidConfig",
           "CompilationFailedConfig", "RuntimeFailedConfig"]
_log = logging.getLogger("kjit.kernel_tuner")


class UnsupportedParameter(kjit.ArgumentError, ValueError):
    """A Kernel Tuner parameter (or value) that kjit cannot honour; the
    message names it. A ValueError too, as Kernel Tuner's refusals of a
    value (an unknown strategy or strategy option) are."""


def _unsupported(name, why):
    return UnsupportedParameter("KJIT_ERR_INVALID_ARG", "%s: %s" % (name, why))


# Kernel Tuner's languages that are its CUDA backends
_LANGS = ("CUDA", "CUPY", "NVCUDA", "PYCUDA")
# The strategies that run here, with their strategy_options.
_LOOP_STRATEGIES = (None, "brute_force", "random_sample")
_LOOP_OPTIONS = {"max_fevals", "time_limit", "fraction"}
# Kernel Tuner 1.5.0's strategies that kjit runs (it maps the names, as in a
# T1 spec), with their own options (their _options): those kjit's strategy
# has (Kernel Tuner's name: kjit's setting name), and those it has not.
_KT_MAPPED = {
    "simulated_annealing": ({"T": "T", "T_min": "T_min", "alpha": "alpha",
                             "maxiter": "maxiter"}, ("constraint_aware",)),
    "genetic_algorithm": ({"popsize": "popsize", "maxiter": "maxiter", "method": "method",
                           "mutation_chance": "mutation_chance"}, ("constraint_aware",)),
    "pso": ({"popsize": "popsize", "maxiter": "maxiter", "w": "w", "c1": "c1", "c2": "c2"},
            ("constraint_aware",)),
    "dual_annealing": ({}, ("method",)),
    "bayes_opt": ({"popsize": "num_initial"},
                  ("covariancekernel", "covariancelengthscale", "method", "samplingmethod")),
    "skopt": ({"num_initial": "num_initial"},
              ("learner", "acq_func", "lie_strategy", "kappa", "batch_size", "skopt_kwargs")),
}
# Kernel Tuner 1.5.0's strategies kjit has none like.
_KT_REFUSED = {
    "minimize": "scipy's local optimisation from a start point",
    "basinhopping": "scipy's basin hopping from a start point",
    "diff_evo": "differential evolution",
    "firefly_algorithm": "the firefly algorithm",
    "greedy_mls": "a greedy multi-start local search",
    "ordered_greedy_mls": "an ordered greedy multi-start local search",
    "mls": "a multi-start local search",
    "greedy_ils": "a greedy iterated local search",
    "pyatf_strategies": "pyATF's search techniques",
    "hybrid_vndx": "a variable neighbourhood search with a k-NN model",
    "adaptive_tabu_greywolf": "a tabu grey-wolf search",
    "nsga2": "multi-objective NSGA-II",
    "nsga3": "multi-objective NSGA-III",
}
# strategy_options every strategy of kjit's takes, and those it takes
# and has no use for (warned of).
_SEARCH_OPTIONS = {"max_fevals", "time_limit"}
_SEARCH_UNUSED = {"searchspace_construction_options"}
_DEFAULT_BLOCK_NAMES = ["block_size_x", "block_size_y", "block_size_z"]
_MEASURE_BUDGET_MS = 10.0
_WARMUP_MS = 5.0


def _check_common(o):
    """Kernel Tuner's checks of what tune_kernel() and run_kernel() share,
    made before the GPU is looked for; sets o["block_size_names"] to the
    three names."""
    if o["log"]:  # Kernel Tuner's log=: a log file of that level, named after the kernel
        logging.basicConfig(filename=o["kernel_name"] + datetime.datetime.now().strftime(
            "%Y%m%d-%H:%M:%S") + ".log", level=o["log"])
    _check_lang(o["lang"], o["kernel_source"])
    if o["platform"] not in (0, None):
        raise _unsupported("platform", "an OpenCL platform; kjit runs CUDA only")
    if o["texmem_args"]:
        raise _unsupported("texmem_args", "texture memory is not supported by kjit")
    if o["compiler"] is not None:
        raise _unsupported("compiler", "kjit compiles with NVRTC; a host compiler "
                           "(the C backend) is not supported")
    o["block_size_names"] = _block_names(o["block_size_names"], o.get("tune_params"))
    o["flags"], o["flag_dirs"], o["flag_archs"] = _compiler_options(o["compiler_options"])


# compiler_options that name what kjit gives NVRTC another way
_INCLUDE_OPTIONS = ("-I", "--include-path")
_ARCH_OPTIONS = ("-arch", "--gpu-architecture")


def _compiler_options(options):
    """compiler_options as the compiler Kernel Tuner hands them to reads
    them: (the other flags, the folders of -I and --include-path made
    absolute, the architectures of -arch and --gpu-architecture), each
    value joined ("-Idir", "-I=dir") or the next item ("-I", "dir")."""
    items = [str(x) for x in options or ()]
    flags, dirs, archs = [], [], []
    i = 0
    while i < len(items):
        f, i = items[i], i + 1
        for names, out in ((_INCLUDE_OPTIONS, dirs), (_ARCH_OPTIONS, archs)):
            name = next((n for n in names if f == n or f.startswith(n + "=") or
                         (n == "-I" and f.startswith(n))), None)
            if name is None:
                continue
            if f == name:
                if i == len(items):
                    raise ValueError("compiler_options: %s without its value" % f)
                value, i = items[i], i + 1
            else:
                value = f[len(name):].lstrip("=") if name == "-I" else f[len(name) + 1:]
            out.append(os.path.abspath(value) if out is dirs else value)
            break
        else:
            flags.append(f)
    return flags, dirs, archs


def _check_archs(o, engine):
    """-arch in compiler_options: the GPU's own (what kjit compiles for) or
    refused."""
    own = (engine.arch, engine.arch.replace("sm_", "compute_", 1))
    for a in o["flag_archs"]:
        if a not in own:
            raise _unsupported("compiler_options", "-arch=%s: kjit compiles for the GPU's "
                               "architecture, %s" % (a, engine.arch))


def _sources(kernel_source):
    """kernel_source as Kernel Tuner reads it: a list (the kernel, then
    files it includes) or one source."""
    return kernel_source if isinstance(kernel_source, list) else [kernel_source]


def _looks_like_a_file(source):
    """Kernel Tuner's test of a string naming a file rather than holding code."""
    return (isinstance(source, str) and len(source) <= 250 and
            not any(c in source for c in "();{}\\") and
            not any(s in source for s in ("__global__ ", "__kernel ", "void ", "float ")) and
            any(s in source for s in (".c", ".opencl", ".F", ".jl")))


def _text(source, params=None):
    """One source's code: a generator's for params, a file's, or the string."""
    if callable(source):
        return source(params)
    if isinstance(source, pathlib.Path):
        return source.read_text(encoding="utf-8")
    if not isinstance(source, str):
        raise TypeError("kernel_source: expected code or a file name (a string or a "
                        "pathlib.Path), a list of them, or a function returning the code "
                        "(got %s)" % type(source).__name__)
    if _looks_like_a_file(source):
        with open(source, encoding="utf-8") as f:  # a missing file is an error, not code
            return f.read()
    return source


def _check_lang(lang, kernel_source):
    """Refuses a language other than CUDA, given or as Kernel Tuner detects it."""
    if lang is None:
        first = _sources(kernel_source)[0]
        if callable(first):
            raise TypeError("lang: Kernel Tuner needs the language when kernel_source is a "
                            "code generator function (pass lang='CUDA')")
        text = _text(first).lower()
        if "__global__" not in text:
            detected = ("OpenCL" if "__kernel" in text else
                        "Julia" if any(t in text for t in ("@cuda", "@kernel", "@device_code"))
                        else "C")
            raise _unsupported("lang", "kernel_source has no __global__ function, so Kernel "
                               "Tuner takes it for %s; kjit runs CUDA kernels only (pass "
                               "lang='CUDA' if it is CUDA)" % detected)
    elif str(lang).upper() not in _LANGS:
        raise _unsupported("lang", "kjit runs CUDA kernels only (got %r)" % (lang,))


def _block_names(names, tune_params=None):
    """The three block_size_names, checked as Kernel Tuner checks them. With
    tune_params (tune_kernel()), Kernel Tuner warns of a name that is no
    parameter, and without names takes parameters that spell the default
    names in another case (BLOCK_SIZE_X) as the first names."""
    if names is not None:
        if not isinstance(names, list):
            raise ValueError("block_size_names should be a list of strings (got %s)"
                             % type(names).__name__)
        if len(names) > 3:
            raise ValueError("block_size_names should not contain more than 3 names (got %r)"
                             % (names,))
        if not all(isinstance(n, str) for n in names):
            raise ValueError("block_size_names should contain only strings (got %r)" % (names,))
    if isinstance(tune_params, dict):
        if names is not None:
            for n in names:
                if n not in tune_params:
                    warnings.warn("Block size name %s is not specified in the tunable "
                                  "parameters list!" % n, UserWarning, stacklevel=4)
        elif not any(k.lower() in _DEFAULT_BLOCK_NAMES for k in tune_params):
            warnings.warn("None of the tunable parameters specify thread block dimensions!",
                          UserWarning, stacklevel=4)
        else:
            names = sorted((k for k in tune_params
                            if k.lower() in _DEFAULT_BLOCK_NAMES and k not in _DEFAULT_BLOCK_NAMES),
                           key=str.casefold)
    names = list(names or [])
    return names + _DEFAULT_BLOCK_NAMES[len(names):]


def _check_tuning(o):
    """Kernel Tuner's checks of tune_kernel()'s own parameters, and
    refusals of what kjit cannot honour; sets o["objective"],
    o["objective_higher_is_better"] and o["verify"] as they are used, and
    what the observers ask for (o["power_observed"], o["sensed"])."""
    if o["simulation_mode"]:
        raise _unsupported("simulation_mode", "replay a cache with kjit-tune --replay")
    if o["parallel"]:
        raise _unsupported("parallel", "tune on several GPUs with kjit-tune --devices")
    if not isinstance(o["tune_params"], dict) or not o["tune_params"]:
        raise kjit.ArgumentError("KJIT_ERR_INVALID_ARG",
                                 "tune_params: expected a dict of parameter lists")
    o["objective"], o["objective_higher_is_better"] = _objective(
        o["objective"], o["objective_higher_is_better"], o["objectives"])
    _check_tune_params(o["tune_params"], o["observers"])
    it = o["iterations"]
    if isinstance(it, bool) or not isinstance(it, numbers.Integral) or it < 1:
        raise kjit.ArgumentError("KJIT_ERR_INVALID_ARG", "iterations: expected a count of 1 "
                                 "or more (got %r)" % (it,))
    _check_strategy(o["strategy"], dict(o["strategy_options"] or {}))
    o["power_observed"], o["sensed"] = _observables(o["observers"])
    if o["metrics"] is not None:
        if not isinstance(o["metrics"], dict):
            raise ValueError("metrics should be a dictionary to preserve order and support "
                             "composability (got %s)" % type(o["metrics"]).__name__)
        for name, f in o["metrics"].items():
            if not isinstance(f, str) and not callable(f):
                raise ValueError("metrics[%r]: metric dicts values should be strings or "
                                 "callable (got %s)" % (name, type(f).__name__))
    verify = o["verify"]
    if o["answer"] is not None:
        _check_answer(o["answer"], o["arguments"], verify is None)
    if verify is not None and "atol" not in inspect.signature(verify).parameters:
        # Kernel Tuner passes atol= only to a verify function that takes it
        o["verify"] = lambda answer, result_host, atol: verify(answer, result_host)


# Kernel Tuner's objectives whose direction it knows without
# objective_higher_is_better
_HIGHER_IS_BETTER = {"time": False, "energy": False, "fitness": True, "cost": False,
                     "loss": False, "GFLOP/s": True, "TFLOP/s": True, "GB/s": True,
                     "TB/s": True, "GFLOPS/W": True, "TFLOPS/W": True, "GFLOP/J": True,
                     "TFLOP/J": True}


def _objective(objective, higher, objectives):
    """(objective, higher is better) as Kernel Tuner sets them; several
    objectives are refused."""
    if objectives:
        if not isinstance(objectives, dict):
            raise ValueError("objectives should be a dict of (objective, higher_is_better) "
                             "pairs")
        raise _unsupported("objectives", "multi-objective tuning is not supported")
    if isinstance(objective, list):
        if len(objective) != 1:
            raise _unsupported("objective", "%r: multi-objective tuning is not supported"
                               % (objective,))
        objective = objective[0]
        higher = higher[0] if isinstance(higher, list) else higher
    objective = objective or "time"
    if higher is None:
        if objective not in _HIGHER_IS_BETTER:
            raise ValueError("Please specify objective_higher_is_better for objective %s"
                             % objective)
        higher = _HIGHER_IS_BETTER[objective]
    return objective, bool(higher)


def _check_tune_params(tune_params, observers):
    """Kernel Tuner's refusals of parameter names: those it defines itself,
    and nvml_ parameters (GPU clocks and power limits it sets through an
    NVMLObserver, which kjit does not)."""
    for name, values in tune_params.items():
        if name in ("grid_size_x", "grid_size_y", "grid_size_z", "time"):
            raise ValueError("Tune parameter %s with value %s has a forbidden name!"
                             % (name, values))
    nvml = [k for k in tune_params if "nvml_" in k]
    if nvml and not any(type(obs).__name__ == "NVMLObserver" for obs in observers or ()):
        raise ValueError("tune_params %s: Tune parameters starting with nvml_ require an "
                         "NVMLObserver!" % ", ".join(nvml))
    if nvml:
        raise _unsupported("tune_params", "%s: kjit does not set the GPU's clocks or power "
                           "limit" % ", ".join(nvml))


def _check_answer(answer, arguments, compared):
    """Kernel Tuner's checks of answer= against the arguments: one entry
    each; when compared (no verify function), each entry given an array of
    the argument's size and of a type its output casts to."""
    import numpy as np
    if len(answer) != len(arguments):
        raise kjit.ArgumentError("KJIT_ERR_INVALID_ARG", "answer: %d entries for %d "
                                 "arguments" % (len(answer), len(arguments)))
    for i, (want, arg) in enumerate(zip(answer, arguments)):
        if want is None or not compared:
            continue
        want = np.asarray(want)  # as Kernel Tuner converts each entry
        if not isinstance(arg, np.ndarray):
            raise TypeError("answer[%d]: the argument is a %s, not an array an answer can "
                            "be compared with" % (i, type(arg).__name__))
        if not np.can_cast(arg.dtype, want.dtype):
            raise TypeError("answer[%d]: its dtype %s is not compatible with the kernel "
                            "output's %s" % (i, want.dtype, arg.dtype))
        if want.size != arg.size:
            raise ValueError("answer[%d]: its size %d differs from the argument's %d"
                             % (i, want.size, arg.size))


def _check_strategy(strategy, options):
    """Refuses a strategy or option kjit cannot honour, and warns of those
    that set only the internals of Kernel Tuner's implementation."""
    if strategy in _KT_REFUSED:
        raise _unsupported("strategy", "%r (Kernel Tuner's %s) has no kjit counterpart; kjit "
                           "runs brute_force, random_sample, %s and kjit's own strategies "
                           "(hybrid: the best's neighbours, kicks, jumps and restarts)"
                           % (strategy, _KT_REFUSED[strategy], ", ".join(sorted(_KT_MAPPED))))
    if not isinstance(strategy, (str, type(None))):
        raise _unsupported("strategy", "%s: a strategy object; kjit runs its own strategies, "
                           "by name" % type(strategy).__name__)
    if "x0" in options:
        raise _unsupported("strategy_options", "x0: kjit's strategies choose their own start")
    fraction = options.get("fraction")
    if fraction is not None and (isinstance(fraction, bool) or
                                 not isinstance(fraction, (int, float)) or
                                 not 0 < fraction <= 1):
        raise _unsupported("strategy_options", "fraction: expected 0 < F <= 1 (got %r)"
                           % (fraction,))
    # both > 0, as Kernel Tuner's TuningBudget has them
    for key, what in (("max_fevals", "a count of 1 or more"), ("time_limit", "seconds > 0")):
        v = options.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real) or
                              not v > 0 or (key == "max_fevals" and v != int(v))):
            raise _unsupported("strategy_options", "%s: expected %s (got %r)" % (key, what, v))
    if strategy in _LOOP_STRATEGIES:
        # Kernel Tuner's random_sample takes searchspace_construction_options,
        # its brute_force no option at all
        other = ()
        known = _LOOP_OPTIONS | (_SEARCH_UNUSED if strategy == "random_sample" else set())
    elif strategy in _KT_MAPPED:
        passed, other = _KT_MAPPED[strategy]
        known = _SEARCH_OPTIONS | _SEARCH_UNUSED | set(passed) | set(other)
    else:  # kjit's own names: it checks their options (_strategy_settings)
        other, known = (), set(options)
    extra = set(options) - known
    if extra:
        raise _unsupported("strategy_options", "%s: not an option of strategy %r (its options: "
                           "%s)" % (", ".join(sorted(extra)), strategy or "brute_force",
                                    ", ".join(sorted(known))))
    unused = sorted((set(options) & (set(other) | _SEARCH_UNUSED)) - {"constraint_aware"})
    if "constraint_aware" in other and options.get("constraint_aware", True) is not True:
        unused.append("constraint_aware")
    if unused:
        warnings.warn("kjit.kernel_tuner: strategy %r: strategy_options %s set Kernel "
                      "Tuner's own implementation and are not used: kjit's strategy "
                      "keeps its settings (kjit-tune(1)); max_fevals and time_limit bound "
                      "the search" % (strategy, ", ".join(unused)), UserWarning, stacklevel=4)


_ENERGY_OBSERVABLES = ("nvml_energy", "nvml_power")
# NVMLObserver's readings during the benchmark, and Engine.gpu_sensors()'s
_SENSOR_OBSERVABLES = {"temperature": "temperature_c", "core_freq": "graphics_clock_mhz",
                       "mem_freq": "mem_clock_mhz"}


def _observables(observers):
    """What Kernel Tuner's NVMLObserver instances ask for, when kjit can
    measure it: (energy and power through kjit's measurement of energy,
    readings of the GPU during the benchmark)."""
    power, sensed = [], []
    for obs in observers or ():
        if type(obs).__name__ != "NVMLObserver":
            raise _unsupported("observers", "%s: kjit measures energy, power, temperature and "
                               "clocks (an NVMLObserver's %s) and nothing else"
                               % (type(obs).__name__,
                                  ", ".join(_ENERGY_OBSERVABLES + tuple(_SENSOR_OBSERVABLES))))
        during = list(getattr(obs, "observables", []))
        energy = getattr(getattr(obs, "continuous_observer", None), "observables", None) or []
        other = [x for x in during + list(energy)
                 if x not in _ENERGY_OBSERVABLES and x not in _SENSOR_OBSERVABLES]
        if other:
            raise _unsupported("observers", "NVMLObserver observables %s (kjit measures %s)"
                               % (", ".join(other), ", ".join(_ENERGY_OBSERVABLES +
                                                              tuple(_SENSOR_OBSERVABLES))))
        power += [x for x in energy if x not in power]
        sensed += [x for x in during if x in _SENSOR_OBSERVABLES and x not in sensed]
    return power, sensed


class _Sensing:
    """NVML's readings of the GPU taken on a thread while a benchmark runs (the
    measurement lets go of the GIL), averaged as Kernel Tuner's NVMLObserver
    averages its readings during the kernel's runs."""

    def __init__(self, engine, wanted):
        self.engine, self.wanted, self.readings = engine, wanted, []
        self.done, self.error = threading.Event(), None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        try:
            while True:
                self.readings.append(self.engine.gpu_sensors())
                if self.done.wait(0.001):
                    break
        except kjit.Error as e:
            self.error = e

    def stop(self):
        """The averages, under Kernel Tuner's names."""
        self.done.set()
        self.thread.join()
        if self.error is not None:
            raise self.error
        return {name: sum(x[_SENSOR_OBSERVABLES[name]] for x in self.readings) /
                len(self.readings) for name in self.wanted}


def _source(kernel_source, params):
    """The kernel's text for params, and the folders to search for headers
    (those of the files named)."""
    sources = _sources(kernel_source)
    for f in sources[1:]:
        if not _looks_like_a_file(f) and not isinstance(f, pathlib.Path):
            raise ValueError("kernel_source[%d]: when passing multiple kernel sources, the "
                             "secondary entries must be filenames (got %.40r)"
                             % (sources.index(f), f))
    dirs = sorted({os.path.dirname(os.path.abspath(f)) for f in sources
                   if isinstance(f, pathlib.Path) or _looks_like_a_file(f)})
    return _text(sources[0], params), dirs


def _substitute(text, params):
    """text with each parameter name replaced by its value, as Kernel Tuner
    fills in a define's value or an expression."""
    return "".join(str(params[t]) if t in params else t
                   for t in re.split("([a-zA-Z0-9_]+)", text))


def _evaluate_expr(expr, params):
    """A Kernel Tuner expression (a problem size, grid divisor, shared
    memory size or metric) over the parameters' values: Python with them
    filled in."""
    return eval(_substitute(expr, params), {})


def _problem(problem_size, params):
    """The problem's three sizes, as Kernel Tuner reads problem_size: an
    int, a string (an expression), a tuple of those, or a function of the
    parameters returning one."""
    p = problem_size(params) if callable(problem_size) else problem_size
    if isinstance(p, (str, numbers.Integral)):
        p = (p,)
    out = [1, 1, 1]
    if len(p) > 3:
        raise ValueError("problem_size: at most 3 dimensions (got %r)" % (p,))
    for i, x in enumerate(p):
        if isinstance(x, str):
            out[i] = int(_evaluate_expr(x, params))
        elif isinstance(x, numbers.Integral):
            out[i] = int(x)
        else:
            raise TypeError("problem_size should only contain strings or integers (got %r)"
                            % (x,))
    return out


def _grid_div(div, params, default, axis="x"):
    """A grid divisor as Kernel Tuner reads grid_div_x/y/z: None (the block
    size parameter default names), an int, a string (an expression), a
    function of the parameters, or a list of those, multiplied."""
    if div is None:
        return params.get(default, 1)
    if isinstance(div, int):
        return div
    if callable(div):
        return div(params)
    if isinstance(div, str):
        return int(_evaluate_expr(div, params))
    if isinstance(div, (list, tuple)):
        return math.prod(_grid_div(d, params, 1, axis) for d in div)
    raise ValueError("grid_div_%s: unrecognized type in grid divisor list, should be any of "
                     "int, str, callable, or iterable (got %s)" % (axis, type(div).__name__))


def _geometry(o, params):
    """(grid, block) of a configuration, as Kernel Tuner computes them."""
    names = o["block_size_names"]
    block = tuple(int(params.get(n, d)) for n, d in zip(names, (256, 1, 1)))
    size = _problem(o["problem_size"], params)
    grid = tuple(int(math.ceil(n / _grid_div(o["grid_div_" + axis], params, name, axis)))
                 for n, axis, name in zip(size, "xyz", names))
    return grid, block


def _defines(o, params, grid, block):
    """The preprocessor definitions of a configuration, as Kernel Tuner
    makes them: defines= (values, strings with the parameters filled in,
    or functions of the parameters), else the grid and block sizes, the
    parameters and kernel_tuner."""
    defines = o["defines"]
    if defines is None:
        defines = dict(zip(("grid_size_x", "grid_size_y", "grid_size_z"), grid))
        defines.update(zip(o["block_size_names"], block))
        defines.update(params)
        defines["kernel_tuner"] = 1
    out = {}
    for k, v in defines.items():
        if not isinstance(k, str) or not k.isidentifier():
            raise ValueError("defines: name is not a valid identifier: %r" % (k,))
        out[k] = v(params) if callable(v) else _substitute(v, params) if isinstance(v, str) else v
    return out


def _unroll_factors(text, defines):
    """Kernel Tuner's loop_unroll_factor definitions in CUDA: each a
    constexpr int (what #pragma unroll takes) before the code, or, at 0,
    the #pragma unroll naming it removed; the other definitions."""
    prefix, rest = "", {}
    for k, v in defines.items():
        if "loop_unroll_factor" not in k:
            rest[k] = v
        elif str(v) == "0":
            text = re.sub(r"\n\s*#pragma\s+unroll\s+" + k, "\n", text)
        else:
            prefix += "constexpr int %s = %s;\n" % (k, v)
    return (prefix + "#line 1\n" + text if prefix else text), rest


# Bytes after each array on the GPU. Kernel Tuner's arrays sit among others
# (CuPy's pool), where a kernel whose blocks do not divide the problem writes a
# little past an array's end unnoticed (its convolution example does); past the
# end of a lone allocation that can be an illegal address, which ends the
# process's use of the GPU. What lands here is caught and warned of.
_SLACK = 1 << 16
_CANARY = b"\xa5" * _SLACK


class _Device:
    """The arguments on the GPU: one buffer per array, uploaded once (their
    bytes kept to reset outputs before each verification), each followed by
    _SLACK bytes of a known pattern."""

    def __init__(self, engine, arguments):
        import numpy as np
        self.engine, self.host, self.ptrs, self.bytes = engine, arguments, [], []
        self.overrun = set()
        for a in arguments:
            if isinstance(a, np.ndarray):
                raw = np.ascontiguousarray(a).tobytes()
                p = engine.alloc(len(raw) + _SLACK)
                self.ptrs.append(p)
                engine.htod(p, raw)
                engine.htod(p + len(raw), _CANARY)
            else:
                self.ptrs.append(None)
                raw = None
            self.bytes.append(raw)

    def check_slack(self, params):
        """Warns, once an argument, where configuration params wrote past an
        array's end, and sets its slack back."""
        for i, (p, raw) in enumerate(zip(self.ptrs, self.bytes)):
            if p is None or self.engine.dtoh(p + len(raw), _SLACK) == _CANARY:
                continue
            self.engine.htod(p + len(raw), _CANARY)
            if i not in self.overrun:
                self.overrun.add(i)
                warnings.warn("configuration %s wrote past the end of argument %d (an array of "
                              "%d bytes): kjit gives each array %d bytes more, so this run "
                              "goes on, but the kernel writes out of bounds"
                              % (params, i, len(raw), _SLACK), UserWarning, stacklevel=2)

    def args(self):
        return [p if p is not None else a for p, a in zip(self.ptrs, self.host)]

    def reset(self, which):
        for i in which:
            self.engine.htod(self.ptrs[i], self.bytes[i])

    def read(self, i, copy=True):
        """Argument i as it is on the GPU (read-only unless copy)."""
        import numpy as np
        a = self.host[i]
        raw = self.engine.dtoh(self.ptrs[i], a.nbytes)
        out = np.frombuffer(raw, dtype=a.dtype).reshape(a.shape)
        return out.copy() if copy else out

    def close(self, quiet=False):
        """Frees the buffers; quiet: their errors not raised (another error is on
        its way, and a context a kernel broke fails every free)."""
        err = None
        for p in self.ptrs:
            if p is not None:
                try:
                    self.engine.free(p)
                except kjit.Error as e:
                    err = err or e
        self.ptrs = [None] * len(self.ptrs)
        if err is not None and not quiet:
            raise err

    def exit(self, typ, value, tb):
        """close() as an ExitStack's exit callback."""
        self.close(quiet=typ is not None)


def _engine(device, what):
    """An engine of its own, closed when the call's kernels are gone (their
    modules unloaded); the binaries stay in the store."""
    try:
        engine = kjit.Engine(device=device or 0)
    except kjit.NoGPUError as e:
        raise kjit.NoGPUError("KJIT_ERR_NO_GPU", "kjit.kernel_tuner.%s needs a GPU: %s"
                              % (what, e)) from None
    if not engine.has_gpu:
        raise kjit.NoGPUError("KJIT_ERR_NO_GPU", "kjit.kernel_tuner.%s needs a GPU: %s"
                              % (what, engine.gpu_reason))
    return engine


# Kernel Tuner's C spellings of NumPy's types, each looked for within a
# parameter's declaration
_C_SPELLINGS = {"bool": ("bool",), "uint8": ("uchar", "unsigned char", "uint8_t"),
                "int8": ("char", "int8_t"), "uint16": ("ushort", "unsigned short", "uint16_t"),
                "int16": ("short", "int16_t"), "uint32": ("uint", "unsigned int", "uint32_t"),
                "int32": ("int", "int32_t"), "uint64": ("ulong", "unsigned long", "uint64_t"),
                "int64": ("long", "int64_t"), "float16": ("half",), "float32": ("float",),
                "float64": ("double",), "complex64": ("float2",), "complex128": ("double2",)}


def _check_arguments(o):
    """Kernel Tuner's checks of the arguments: NumPy arrays and scalars, and
    against the kernel's declaration in each source (a generator's is not
    read), a warning where their count or a type does not match it."""
    import numpy as np
    args = o["arguments"]
    for i, a in enumerate(args):
        if not isinstance(a, (np.ndarray, np.generic)):
            raise kjit.ArgumentError("KJIT_ERR_INVALID_ARG", "arguments[%d]: expected a NumPy "
                                     "array or scalar (got %s)" % (i, type(a).__name__))
    for source in _sources(o["kernel_source"]):
        parsed = None if callable(source) else _types.parse_params(_text(source),
                                                                   o["kernel_name"])
        if parsed is None:
            continue
        decls = [t + " " + n for t, n in zip(*parsed)]
        if len(decls) != len(args):
            warnings.warn("Kernel (%d) and host argument (%d) lists do not match in size."
                          % (len(decls), len(args)), UserWarning, stacklevel=3)
            continue
        for i, (a, decl) in enumerate(zip(args, decls)):
            if ((isinstance(a, np.ndarray) and "*" not in decl) or
                    not any(c in decl for c in _C_SPELLINGS.get(str(a.dtype), ()))):
                warnings.warn("Argument at position %d of dtype: %s does not match %s."
                              % (i, a.dtype, decl), UserWarning, stacklevel=3)
                break


def _kernel_inputs(o, params):
    """(source text, header folders, defines, grid, block) of a configuration."""
    grid, block = _geometry(o, params)
    text, dirs = _source(o["kernel_source"], params)
    text, defines = _unroll_factors(text, _defines(o, params, grid, block))
    return text, dirs + o["flag_dirs"], defines, grid, block


def _make_kernel(o, params, engine):
    text, dirs, defines, grid, block = _kernel_inputs(o, params)
    k = kjit.kernel(text, o["kernel_name"], params=defines,
                    flags=o["flags"], include_dirs=dirs or None, engine=engine)
    for name, value in (o["cmem_args"] or {}).items():
        k.set_symbol(name, value.tobytes())
    shared = (o["smem_args"] or {}).get("size", 0)
    if callable(shared):
        shared = shared(params)
    elif isinstance(shared, str):
        shared = _evaluate_expr(shared, params)
    return k, grid, block, int(shared)


def run_kernel(kernel_name, kernel_source, problem_size, arguments, params, grid_div_x=None,
               grid_div_y=None, grid_div_z=None, lang=None, device=0, platform=0,
               smem_args=None, cmem_args=None, texmem_args=None, compiler=None,
               compiler_options=None, defines=None, block_size_names=None, quiet=False,
               log=None):
    """Compiles and runs one configuration (params) of a kernel; returns a list
    with one entry per argument: arrays as they are after the run (NumPy),
    scalars as given. The parameters are those of Kernel Tuner 1.5.0's
    run_kernel()."""
    o = dict(locals())
    _check_common(o)
    _check_arguments(o)
    engine = _engine(device, "run_kernel")
    _check_archs(o, engine)
    k, grid, block, shared = _make_kernel(o, dict(params), engine)
    k.compile()  # its errors (a kernel not in the source) before the arguments'
    dev = _Device(engine, arguments)
    with contextlib.ExitStack() as held:
        held.push(dev.exit)
        k(grid, block, *dev.args(), shared_mem=shared)
        engine.synchronize()
        dev.check_slack(params)
        return [dev.read(i) if p is not None else a
                for i, (p, a) in enumerate(zip(dev.ptrs, arguments))]


def _restrictions(restrictions):
    """Kernel Tuner's restrictions as a list: a list or tuple of them, or one."""
    if restrictions is None:
        return []
    return list(restrictions) if isinstance(restrictions, (list, tuple)) else [restrictions]


def _restriction_test(r, keys, alone):
    """A test of a configuration (a dict) for one of Kernel Tuner's
    restrictions: a string is a Python expression over the parameters; a
    function alone, of one argument, with several parameters, gets the
    configuration, as a lambda of one argument that is no parameter does
    (Kernel Tuner rewrites its p["name"] to name); another lambda gets the
    parameters its arguments name, another function every value in order."""
    if isinstance(r, str):
        return lambda p: eval(r, {}, dict(p))
    if not callable(r):
        raise ValueError("restrictions: %r is neither a string nor a function" % (r,))
    args = list(inspect.signature(r).parameters)
    if getattr(r, "__name__", None) == "<lambda>":
        if len(args) == 1 and args[0] not in keys:
            return r
        return lambda p: r(**{a: p[a] for a in args})
    if len(args) == 1 and alone and len(keys) > 1:
        return r
    return lambda p: r(*p.values())


# a block's most threads on every CUDA GPU: Kernel Tuner restricts the
# product of the default block size parameters to the device's
_MAX_THREADS = 1024


def _space(tune_params, restrictions):
    """The valid configurations, in the order of the product of the values."""
    keys = list(tune_params)
    rs = _restrictions(restrictions)
    tests = [_restriction_test(r, keys, len(rs) == 1) for r in rs]
    block = [n for n in _DEFAULT_BLOCK_NAMES if n in keys]
    for values in itertools.product(*(tune_params[k] for k in keys)):
        p = dict(zip(keys, values))
        if math.prod(p[n] for n in block) <= _MAX_THREADS and all(t(p) for t in tests):
            yield p


def _choose(configs, strategy, options, seed):
    """The configurations brute_force or random_sample evaluate, in order:
    random_sample's as Kernel Tuner's (max_fevals, else the fraction, 0.1
    by default, rounded up); brute_force's all, or a random choice of
    max_fevals or the fraction."""
    options = options or {}
    n = len(configs)
    budget = options.get("max_fevals")
    fraction = options.get("fraction", 0.1 if strategy == "random_sample" else None)
    if budget is None and fraction is not None:
        budget = max(1, math.ceil(n * fraction))
    if strategy == "random_sample" or (budget and budget < n):
        rng = random.Random(seed)
        configs = rng.sample(configs, min(n, budget or n))
    return configs


def _output_indices(o):
    """The arguments read back to check a configuration's output, as Kernel
    Tuner reads them: the arrays answer= gives an entry for, or with no
    answer but a verify function, every array."""
    import numpy as np
    arrays = [i for i, a in enumerate(o["arguments"]) if isinstance(a, np.ndarray)]
    if o["answer"] is not None:
        return [i for i in arrays if o["answer"][i] is not None]
    return arrays if o["verify"] is not None else []


def _outputs(o, dev, out_idx, k, geo):
    """The outputs of one run from the initial arguments (None elsewhere);
    read-only arrays unless a verify function gets them."""
    grid, block, shared = geo
    dev.reset(out_idx)
    k(grid, block, *dev.args(), shared_mem=shared)
    dev.engine.synchronize()
    copy = o["verify"] is not None
    return [dev.read(i, copy) if i in out_idx else None for i in range(len(o["arguments"]))]


# the margin by which the fast comparison must pass: more than the
# rounding of its float32 arithmetic, so that np.allclose passes too
_CLOSE_MARGIN = 1e-6


class _Checker:
    """The outputs' check, on a thread of its own while the GPU measures:
    verify=, or Kernel Tuner's comparison of each output with answer=,
    np.allclose(expected, output, atol=atol) with the answer's NaNs equal
    to NaNs (warned of, as Kernel Tuner warns). The comparison first takes
    a fast path, in the arrays' own float type with buffers kept from one
    check to the next and a margin that makes its pass certain, then
    np.allclose itself where that cannot decide (a mismatch, NaNs,
    infinities, another type)."""

    def __init__(self, o, out_idx):
        import numpy as np
        self.o, self.out_idx = o, out_idx
        self.pool = ThreadPoolExecutor(max_workers=1)
        # the comparison's (a verify function makes its own)
        answer = o["answer"] if o["verify"] is None else None
        self.expected = {i: np.asarray(answer[i]).ravel() for i in out_idx} if answer else {}
        self.nan = {i: bool(np.isnan(e).any()) if e.dtype.kind in "fc" else False
                    for i, e in self.expected.items()}
        self.scratch = {}

    def submit(self, results):
        return self.pool.submit(self._check, results)

    def shutdown(self):
        self.pool.shutdown()

    def _check(self, results):
        o = self.o
        if o["verify"] is not None:
            return bool(o["verify"](o["answer"], results, atol=o["atol"]))
        return all(self._close(i, results[i].ravel()) for i in self.out_idx)

    def _fast(self, i, expected, result):
        """1 when |expected - result| < atol + 1e-5 |result| everywhere by
        the margin, computed in their float type; 0 when it cannot tell."""
        import numpy as np
        atol = float(self.o["atol"])
        if (expected.dtype != result.dtype or expected.dtype.kind != "f" or self.nan[i] or
                not 0 <= atol < 1e30):
            return 0
        if i not in self.scratch:
            self.scratch[i] = (np.empty_like(result), np.empty_like(result),
                               np.empty(result.shape, dtype=bool))
        diff, bound, ok = self.scratch[i]
        t = result.dtype.type
        np.subtract(expected, result, out=diff)
        np.abs(diff, out=diff)
        np.abs(result, out=bound)
        np.multiply(bound, t(1e-5), out=bound)
        np.add(bound, t(atol), out=bound)
        np.multiply(bound, t(1 - _CLOSE_MARGIN), out=bound)
        # strictly below: an infinite output's bound is infinite too
        np.less(diff, bound, out=ok)
        return bool(ok.all())

    def _close(self, i, result):
        import numpy as np
        expected = self.expected[i]
        if self.nan[i]:
            warnings.warn("Answer contains %d NaNs. NaN values will now be considered equal in "
                          "comparison." % int(np.isnan(expected).sum()), UserWarning)
        return self._fast(i, expected, result) or bool(
            np.allclose(expected, result, atol=self.o["atol"], equal_nan=self.nan[i]))


def _plain(x):
    """x as JSON takes it (scripts json.dump() the env): NumPy's numbers as
    Python's, tuples as lists."""
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    return x.tolist() if hasattr(x, "tolist") else x


def _json_value(x):
    """A NumPy value in a cache file: as Python's."""
    if hasattr(x, "tolist"):
        return x.tolist()
    raise TypeError("cache: %s is not JSON serializable" % type(x).__name__)


class _Cache:
    """Kernel Tuner's cache file, in its format: a JSON object whose "cache"
    holds each result under its parameter values ("v1,v2,..."), kept open
    (without its last two braces) while tuning, a line appended for each
    new result, and closed at the end. A file left open (an interrupted
    run) is read as if closed. A file of another device, kernel, problem
    size or tune_params is refused, as Kernel Tuner refuses it."""

    def __init__(self, path, o, device_name):
        self.path, self.entries = None, {}
        if not path:
            return
        path = str(path.resolve()) if isinstance(path, pathlib.Path) else path
        self.path = path if path.endswith(".json") else path + ".json"
        keys = list(o["tune_params"])
        ps = o["problem_size"]
        if not os.path.isfile(self.path):
            head = {"device_name": device_name, "kernel_name": o["kernel_name"],
                    "problem_size": "callable" if callable(ps) else ps,
                    "tune_params_keys": keys, "tune_params": o["tune_params"],
                    "objective": [o["objective"]], "cache": {}}
            with open(self.path, "w", encoding="utf-8") as f:
                f.write(json.dumps(head, default=_json_value, indent="")[:-3])
            return
        text, data = self._read()
        closed = text.endswith("}")
        for field, what, want in (("device_name", "device", device_name),
                                  ("kernel_name", "kernel", o["kernel_name"])):
            if data[field] != want:
                raise ValueError("Cannot load cache which contains results for different %s "
                                 "(cache: %s, actual: %s)" % (what, data[field], want))
        if "problem_size" in data and not callable(ps):
            def flat(x):
                return list(x) if isinstance(x, (list, tuple)) else [x]
            if flat(data["problem_size"]) != flat(ps):
                raise ValueError("Cannot load cache which contains results for different "
                                 "problem_size, cache: %s, requested: %s"
                                 % (data["problem_size"], ps))
        if data["tune_params_keys"] != keys:
            raise ValueError("Cannot load cache %s: its tunable parameters are %s, tune_params "
                             "has %s%s" % (self.path, data["tune_params_keys"], keys,
                                           " (the same in another order, which must be kept "
                                           "to look configurations up)"
                                           if sorted(map(str, data["tune_params_keys"])) ==
                                           sorted(keys)
                                           else ""))
        self.entries = data["cache"]
        if closed:  # opened again, for appending: the two braces off, not a third
            opened = re.sub(r"\}\s*\}$", "", text)
            with open(self.path, "w", encoding="utf-8") as f:
                f.write(opened + ("," if self.entries else ""))

    _FIELDS = {"device_name": str, "kernel_name": str, "tune_params_keys": list, "cache": dict}

    def _read(self):
        """(the file's text, its JSON), which must be a Kernel Tuner cache:
        its fields, each entry a JSON object; else a ValueError naming the
        file and what is wrong."""
        try:
            with open(self.path, encoding="utf-8") as f:
                text = f.read().strip()
            # closed: its last two braces end the cache and the file (Kernel
            # Tuner writes "}\n}", an earlier kjit "}}}"); open: a "," after
            # the last entry, or the "{" of an empty cache
            data = json.loads(text if text.endswith("}") else text.rstrip(",") + "}\n}")
        except (UnicodeDecodeError, json.JSONDecodeError) as e:
            raise ValueError("cache %s: not a Kernel Tuner cache file (%s)" % (self.path, e)) \
                from None
        # text that ends in "}" and parses is an object
        bad = next(("%s is not a JSON %s" % (k, t.__name__) for k, t in self._FIELDS.items()
                    if not isinstance(data.get(k), t)), None)
        bad = bad or next(("entry %s is not a JSON object" % k
                           for k, v in data["cache"].items() if not isinstance(v, dict)), None)
        if bad:
            raise ValueError("cache %s: not a Kernel Tuner cache file: %s" % (self.path, bad))
        return text, data

    @staticmethod
    def key(params):
        return ",".join(str(v) for v in params.values())

    def misses(self, chosen):
        """The configurations of chosen that are measured, in order: those
        not stored, each once when what is measured is stored (a repeat then
        finds the first's result)."""
        out, seen = [], set()
        for p in chosen:
            key = self.key(p)
            if key not in self.entries and not (self.path and key in seen):
                out.append(p)
                seen.add(key)
        return out

    def get(self, params):
        """The result stored for params (a copy), or None."""
        r = self.entries.get(self.key(params))
        return None if r is None else _from_file(dict(r))

    def put(self, params, result):
        key = self.key(params)
        if self.path is None or key in self.entries:
            return
        self.entries[key] = result
        with open(self.path, "a", encoding="utf-8") as f:
            f.write("\n" + json.dumps({key: result}, default=_json_value)[1:-1] + ",")

    def close(self):
        if self.path is None:
            return
        with open(self.path, encoding="utf-8") as f:
            text = f.read()
        if text.endswith(","):
            with open(self.path, "w", encoding="utf-8") as f:
                f.write(text[:-1] + "}\n}")


class ErrorConfig(str):
    """Kernel Tuner's mark of a configuration that failed, its result's
    "__error__" (the result has no time): a str, its class's name."""

    def __new__(cls, *_):
        return super().__new__(cls, cls.__name__)

    def __getnewargs__(self):
        return ()

    def __repr__(self):
        return type(self).__name__


class InvalidConfig(ErrorConfig):
    """A configuration outside the space (Kernel Tuner's strategies record
    them; kjit's propose none, so it comes from cache files only)."""


class CompilationFailedConfig(ErrorConfig):
    """A configuration that did not compile."""


class RuntimeFailedConfig(ErrorConfig):
    """A configuration whose launch or measurement failed."""


_ERRORS = {c.__name__: c for c in (InvalidConfig, CompilationFailedConfig, RuntimeFailedConfig)}


def _failed(r):
    """Whether a result is a failure (its __error__)."""
    return "__error__" in r


def _from_file(r):
    """A result as a cache file holds it, with its __error__ mark made one
    again, as Kernel Tuner reads it (an older file's "time" naming the
    failure too)."""
    for v in list(r.values()):
        if isinstance(v, str) and v in _ERRORS:
            r["__error__"] = _ERRORS[v]()
    return r


def _metrics(o, r):
    """r with the metrics added, as Kernel Tuner computes them: in order,
    each from the result and the metrics before it."""
    for name, f in (o["metrics"] or {}).items():
        r[name] = f(r) if callable(f) else _evaluate_expr(f, r)
    return r


def _evaluate(o, p, k, geo, dev, out_idx, checker):
    grid, block, shared = geo
    r = dict(p)
    t0 = time.perf_counter()
    check = None
    if out_idx and (o["answer"] is not None or o["verify"] is not None):
        # the comparison (on the host) runs while the GPU measures
        check = checker.submit(_outputs(o, dev, out_idx, k, geo))
    t1 = time.perf_counter()
    # kjit-tune's measurement budget and warm-up (its --measure-budget, --warmup)
    sensing = _Sensing(dev.engine, o["sensed"]) if o["sensed"] else None
    try:
        m = k._measure((_MEASURE_BUDGET_MS, int(o["iterations"]), _WARMUP_MS), grid, block,
                       *dev.args(), shared_mem=shared)
    finally:
        readings = sensing.stop() if sensing else {}
    t2 = time.perf_counter()
    dev.check_slack(p)
    if check is not None and not check.result():
        raise kjit.Error("KJIT_ERR_INVALID_ARG", "the kernel's output differs from answer "
                         "for %r" % (p,))
    times = [s / 1e6 for s in m["samples_ns"][:int(o["iterations"])]]
    r["time"] = sum(times) / len(times)
    r["times"] = times
    r["verification_time"] = (t1 - t0 + time.perf_counter() - t2) * 1e3
    r["benchmark_time"] = (t2 - t1) * 1e3
    r.update(readings)
    if o["power_observed"]:
        prof = k._profile((0, 1), grid, block, *dev.args(), shared_mem=shared)
        if prof["energy_reason"]:
            raise kjit.NoGPUError("KJIT_ERR_NO_GPU", "observers: NVML gave no energy: "
                                  + prof["energy_reason"])
        r["nvml_energy"] = prof["energy_j"]
        r["nvml_power"] = prof["power_w"]
    return _metrics(o, r)


def tune_kernel(kernel_name, kernel_source, problem_size, arguments, tune_params,
                grid_div_x=None, grid_div_y=None, grid_div_z=None, restrictions=None,
                answer=None, atol=1e-06, verify=None, verbose=False, lang=None, device=0,
                platform=0, smem_args=None, cmem_args=None, texmem_args=None, compiler=None,
                compiler_options=None, defines=None, log=None, iterations=7,
                block_size_names=None, quiet=False, strategy=None, strategy_options=None,
                cache=None, metrics=None, simulation_mode=None, parallel=None, observers=None,
                objective=None, objective_higher_is_better=None, objectives=None, seed=None):
    """Tunes a kernel as Kernel Tuner 1.5.0's tune_kernel() does, with the same
    parameters; returns (results, env): results a list of dicts (the
    parameters, "time" in ms, "times", timings, metrics), env a dict of the
    device and the run. See the module's help for what is supported."""
    o = dict(locals())
    _check_common(o)
    _check_arguments(o)
    _check_tuning(o)
    # the space is read (and what kjit cannot search refused) first
    search = None if strategy in _LOOP_STRATEGIES else _Search(o)
    try:
        return _tune(o, _engine(device, "tune_kernel"), search)
    finally:
        if search is not None:
            search.close()


def _compile_into(engine, name, text, defines, flags, dirs):
    """Compiles one configuration into the store of engine, one that never
    touches the driver: (milliseconds, the arguments of its CompileError,
    or None when the binary is stored or the failure was of another kind).
    The same inputs fail the same way on the measuring thread, which then
    need not compile them again; another failure it meets itself."""
    t0, err = time.perf_counter(), None
    try:
        kjit.kernel(text, name, params=dict(defines), flags=flags,
                    include_dirs=dirs or None, engine=engine).compile()
    except kjit.CompileError as e:
        err = [str(a) for a in e.args]
    except kjit.Error:
        pass
    return (time.perf_counter() - t0) * 1e3, err


# A compile process: compiles the configurations it is handed, one JSON
# line each, into the store (as kjit-tune's compile processes open theirs:
# the GPU stays visible to NVRTC) and reports each as a JSON line,
# [index, milliseconds, error] (_compile_into()'s), once done.
_COMPILE_WORKER = r"""
import json, sys
import kjit
from kjit.kernel_tuner import _compile_into
job = json.loads(sys.stdin.readline())
engine = kjit.Engine(db_path=job["db"], arch=job["arch"], compile_threads=1, gpu=False)
for line in sys.stdin:
    i, text, defines, flags, dirs = json.loads(line)
    print(json.dumps([i, *_compile_into(engine, job["name"], text, defines, flags, dirs)]),
          flush=True)
"""
_COMPILE_THREADS = 2  # NVRTC gains little from more threads of one process


class _CompileWorkers:
    """Compile processes that fill the store ahead of the tuning process,
    which then loads their binaries: NVRTC serialises much of a compile
    within one process (kjit-tune's compile pool uses processes for the
    same reason). Configurations are added as they are known; up to n
    processes start as there is work for them, and each takes the oldest
    not yet taken as soon as it is free, so that a slow compile holds up no
    other."""

    def __init__(self, o, engine, n):
        self.o, self.ready, self.done, self.procs = o, {}, {}, []
        self.n = n if engine.db_path != ":memory:" else 0
        self.todo, self.cond = collections.deque(), threading.Condition()
        self.closed = self.gone = False
        pkg = os.path.dirname(os.path.dirname(os.path.abspath(kjit.__file__)))
        path = os.pathsep.join(x for x in (pkg, os.environ.get("PYTHONPATH")) if x)
        self.env = dict(os.environ, PYTHONPATH=path)
        self.job = json.dumps({"db": engine.db_path, "arch": engine.arch,
                               "name": o["kernel_name"]})

    def add(self, i, p):
        """Hands configuration p, numbered i, to the processes; False when
        none will compile it (then it is the tuning process's)."""
        if self.n < 1:
            return False
        try:
            text, dirs, defines, _, _ = _kernel_inputs(self.o, p)
        except Exception:  # noqa: BLE001 (the tuning process reports it at its turn)
            return False
        item = [i, text, [(str(k), kjit._value(v)) for k, v in defines.items()],
                self.o["flags"], dirs]
        with self.cond:
            if self.closed or self.gone:
                return False
            self.ready[i] = threading.Event()
            self.todo.append(item)
            self.cond.notify()
        if len(self.procs) < self.n:  # one more process for each, up to n
            self._start()
        return True

    def _start(self):
        try:
            proc = subprocess.Popen([sys.executable, "-c", _COMPILE_WORKER], env=self.env,
                                    text=True, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except OSError:
            proc = None  # no interpreter to run: the tuning process compiles the rest
        with self.cond:
            if proc is not None:
                self.procs.append(proc)
            elif not self.procs:
                self._give_up()
        if proc is not None:
            threading.Thread(target=self._talk, args=(proc,), daemon=True).start()

    def _take(self):
        with self.cond:
            while not self.todo and not self.closed:
                self.cond.wait()
            return None if self.closed else self.todo.popleft()

    def _give_up(self):
        """What no process will compile is the tuning process's (cond held)."""
        self.gone = True
        while self.todo:
            self.ready[self.todo.popleft()[0]].set()

    def _talk(self, proc):
        item = None
        try:
            proc.stdin.write(self.job + "\n")
            while (item := self._take()) is not None:
                proc.stdin.write(json.dumps(item) + "\n")
                proc.stdin.flush()
                i, ms, err = json.loads(proc.stdout.readline())
                self.done[int(i)] = (float(ms), err)
                self.ready[int(i)].set()
        except (OSError, ValueError, KeyError, TypeError):
            pass  # a worker that fails leaves its configuration to the tuning process
        finally:
            if item is not None:
                self.ready[item[0]].set()
            for f in (proc.stdin, proc.stdout):
                try:
                    f.close()
                except OSError:
                    pass
            proc.wait()
            with self.cond:
                if all(p.poll() is not None for p in self.procs):
                    self._give_up()

    def wait(self, i):
        """(milliseconds a worker spent on configuration i, the arguments of
        its CompileError or None); (0.0, None) where no worker compiled it."""
        if i in self.ready:
            self.ready[i].wait()
        return self.done.get(i, (0.0, None))

    def close(self):
        with self.cond:
            self.closed = True
            self.todo.clear()
            self.cond.notify_all()
            for ready in self.ready.values():  # nobody waits on what is not compiled
                ready.set()
        for proc in self.procs:
            if proc.poll() is None:
                proc.kill()
            proc.wait()


def _t1_type(name, values):
    """A T1 Type for a parameter's values: one type for all."""
    for t1, kinds in (("bool", (bool,)), ("int", (int,)), ("float", (int, float)),
                      ("string", (str,))):
        if all(isinstance(v, kinds) and (t1 == "bool" or not isinstance(v, bool))
               for v in values):
            return t1
    raise _unsupported("tune_params", "%s: values of one type (int, float, bool or str) for "
                       "kjit's strategies (brute_force and random_sample take any)" % name)


def _t1_space(o):
    """The search space as a T1 spec: the parameters (their values in
    order: the search proposes value indices), the restrictions and the
    block's threads, which kjit's space limits to 1024 as Kernel Tuner
    limits them to the device's."""
    params = []
    for name, values in o["tune_params"].items():
        values = [v.item() if hasattr(v, "item") else v for v in values]
        params.append({"Name": name, "Type": _t1_type(name, values), "Values": values})
    restrictions = _restrictions(o["restrictions"])
    for r in restrictions:
        if not isinstance(r, str):
            raise _unsupported("restrictions", "%s: a function; kjit's strategies search a "
                               "space of expressions: write it as a string, as Kernel Tuner "
                               "does (brute_force and random_sample take a function)"
                               % getattr(r, "__name__", type(r).__name__))
    names = (o["block_size_names"] or _DEFAULT_BLOCK_NAMES)[:3]
    block = {axis: n if n in o["tune_params"] else str(256 if axis == "X" else 1)
             for axis, n in zip("XYZ", list(names) + _DEFAULT_BLOCK_NAMES[len(names):])}
    return {"ConfigurationSpace": {"TuningParameters": params, "Conditions": list(restrictions)},
            "KernelSpecification": {"Language": "CUDA", "KernelName": o["kernel_name"],
                                    "KernelFile": "kernel.cu", "ProblemSize": [1],
                                    "LocalSize": block}}


def _strategy_settings(strategy, options):
    """kjit's strategy settings ("NAME=VALUE") for strategy_options: those of
    Kernel Tuner's strategy that kjit's has, by its names; with kjit's own
    names every option but the budgets (kjit refuses what its strategy does
    not take)."""
    if strategy in _KT_MAPPED:
        names = _KT_MAPPED[strategy][0]
    else:
        names = {k: k for k in options if k not in _SEARCH_OPTIONS | _SEARCH_UNUSED}
    settings = []
    for kt_name, name in sorted(names.items()):
        v = options.get(kt_name)
        if v is None:
            continue  # not given, or skopt's num_initial=None: kjit's setting
        settings.append("%s=%s" % (name, repr(v) if isinstance(v, float) else str(v)))
    return settings


def _t1_spec(o):
    """The search space (_t1_space()) as a kjit.Spec, read from a file that
    is gone once read; what its reader could not use, a warning."""
    with tempfile.TemporaryDirectory(prefix="kjit-kt-") as tmp:
        path = os.path.join(tmp, "space.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(_t1_space(o), f)
        try:
            spec = kjit.Spec(path)
        except kjit.Error as e:
            raise type(e)(e.args[0], "tune_params, restrictions: %s"
                          % e.args[1].replace(path + ": ", "")) from None
    for w in spec.warnings:
        warnings.warn("kjit.kernel_tuner: the search space: %s" % w.replace(path + ": ", ""),
                      UserWarning, stacklevel=3)
    return spec


class _Search:
    """kjit's strategy (kjit.Search) proposes the configurations: ask()
    gives those to evaluate now, as (index, dict of tune_params' values),
    and tell() answers each with its objective (lower is better, inf a
    failure). One at a time, as kjit-tune runs a strategy on one GPU; the
    genetic algorithm's whole generation at once, as its proposals do not
    depend on each other's results (the same proposals, compiled side by
    side). A configuration proposed again is answered from what is known;
    the search ends with the strategy, at max_fevals evaluations, or when a
    strategy proposes only known ones for kjit's stuck limit."""

    STUCK = 10000  # kjit.h's KJIT_SEARCH_STUCK_REPEATS
    GENERATIONS = ("genetic_algorithm", "genetic")

    def __init__(self, o):
        self.values = {k: list(v) for k, v in o["tune_params"].items()}
        self.strategy = o["strategy"]
        options = o["strategy_options"] or {}
        budget = options.get("max_fevals")
        spec = _t1_spec(o)
        try:
            self.space = spec.space()
            if not len(self.space):
                raise kjit.ArgumentError("KJIT_ERR_INVALID_ARG", "no valid configuration: the "
                                         "restrictions and the block's 1024 threads rule "
                                         "out every one")
        except kjit.ArgumentError as e:
            raise kjit.ArgumentError(e.args[0], "strategy %r: kjit cannot search this space: "
                                     "%s" % (self.strategy, e.args[1])) from None
        self.left = len(self.space) if budget is None else min(int(budget), len(self.space))
        try:
            self.search = self.space.search(
                self.strategy, settings=_strategy_settings(self.strategy, options),
                budget=self.left, seed=1 if o["seed"] is None else o["seed"],
                limited=budget is not None)
        except kjit.ArgumentError as e:
            what = "strategy" if e.args[1].startswith("unknown strategy") else "strategy_options"
            raise _unsupported(what, "strategy %r: %s" % (self.strategy, e.args[1])) from None
        self.known = {}
        self.out = collections.Counter()  # index -> times asked, not yet told
        self.batched = self.strategy in self.GENERATIONS
        self.ended = False

    def ask(self):
        """The configurations to evaluate now; [] while the strategy waits
        for those outstanding, and at the end."""
        batch, repeats = [], 0
        while self.left > 0 and not self.ended and (self.batched or not self.out):
            j = self.search.ask()
            if j is None or j == kjit.SEARCH_WAIT:
                self.ended = j is None
                break
            if j in self.known:
                self.search.tell(j, self.known[j])
                repeats += 1
                self.ended = repeats > self.STUCK
                continue
            self.out[j] += 1
            if self.out[j] == 1:  # a child equal to another of its generation waits for it
                self.left -= 1
                batch.append((j, {k: v[i] for (k, v), i in zip(self.values.items(),
                                                               self.space.indices(j))}))
                if not self.batched:
                    break
        return batch

    def tell(self, j, objective):
        """objective: configuration j's (lower is better; inf: it failed)."""
        self.known[j] = objective
        for _ in range(self.out.pop(j)):
            self.search.tell(j, objective)

    def close(self):
        """Ends the search: nothing more is asked."""
        self.ended = True


def _answer(r, objective, higher):
    """What the strategy is told of a result: its objective, lower better
    (inf: a failure)."""
    v = r.get(objective)
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        return math.inf
    if v < 0:
        raise _unsupported("objective", "%s = %r: kjit's strategies take objectives of 0 or "
                           "more" % (objective, v))
    if higher:
        return 1.0 / v if v > 0 else math.inf
    return float(v)


def _build(o, p, engine, worker=None):
    """(kernel, geometry, compile ms, error) of configuration p, compiled
    (or loaded from the store); worker: what a compile process spent on it
    and the arguments of the CompileError it met, which is then p's."""
    worker_ms, worker_err = worker or (0.0, None)
    if worker_err:
        return None, None, worker_ms, kjit.CompileError(*worker_err)
    try:
        k, grid, block, shared = _make_kernel(o, p, engine)
        t0 = time.perf_counter()
        k.compile()
        return k, (grid, block, shared), worker_ms + (time.perf_counter() - t0) * 1e3, None
    except kjit.Error as e:
        return None, None, worker_ms, e


class _Ahead:
    """Compiles configurations ahead of their measurement: the first few of
    a batch on threads of this process, the others by compile processes
    (up to processes of them, started as there is work). Both fill the
    store only: no CUDA call is made off the measuring thread, which loads
    each binary as it measures it (under CUDA's lazy loading, a kernel
    first touched on another thread while CUPTI times can lose its
    records). With a store in memory, which no other engine shares, the
    measuring thread compiles. close() stops them, whatever was taken."""

    def __init__(self, o, engine, processes):
        self.o = o
        self.workers = _CompileWorkers(o, engine, processes)
        self.compiler = None
        if engine.db_path != ":memory:":
            try:
                self.compiler = kjit.Engine(db_path=engine.db_path, arch=engine.arch,
                                            compile_threads=1, gpu=False)
            except kjit.Error:
                pass  # the measuring thread compiles, as with a store in memory
        self.stop = threading.Event()
        self.pool = ThreadPoolExecutor(max_workers=min(os.cpu_count() or 1, 32))
        self.count = 0

    def batch(self, configs):
        """A future of (params, (compile ms, the arguments of its
        CompileError or None)) for each of configs: what _build() takes."""
        futures = []
        for n, p in enumerate(configs):
            i, self.count = self.count, self.count + 1
            remote = n >= _COMPILE_THREADS and self.workers.add(i, p)
            futures.append(self.pool.submit(self._compile, p, i if remote else None))
        return futures

    def _compile(self, p, i):
        if i is not None:
            worker = self.workers.wait(i)
            return None if self.stop.is_set() else (p, worker)
        if self.stop.is_set():
            return None  # the tuning stopped (time_limit): nobody takes it
        if self.compiler is None:
            return p, (0.0, None)
        try:
            text, dirs, defines, _, _ = _kernel_inputs(self.o, p)
            return p, _compile_into(self.compiler, self.o["kernel_name"], text, defines,
                                    self.o["flags"], dirs)
        except Exception:  # noqa: BLE001 (the measuring thread meets it and reports it)
            return p, (0.0, None)

    def close(self):
        self.stop.set()
        self.workers.close()
        self.pool.shutdown(cancel_futures=True)


class _ContextLost(Exception):
    """Configuration p's kernel left the GPU unusable to this process (one of
    CUDA's sticky errors, such as an illegal address): every later call
    fails, so tuning stops; result is p's, a runtime failure."""

    def __init__(self, p, error, result):
        super().__init__(p, error, result)
        self.p, self.error, self.result = p, error, result


def _timestamp():
    """A result's timestamp, as Kernel Tuner writes it (UTC)."""
    return str(datetime.datetime.now(datetime.timezone.utc))


def _result(o, p, built, dev, out_idx, checker):
    """The result of configuration p, built by _build(): measured, or its
    failure."""
    k, geo, compile_ms, err = built
    failed = dict(compile_time=compile_ms, verification_time=0, benchmark_time=0)
    if err is not None:
        r = dict(p, __error__=CompilationFailedConfig(), **failed)
    else:
        try:
            r = _evaluate(o, p, k, geo, dev, out_idx, checker)
            r["compile_time"] = compile_ms
        except kjit.NoGPUError:
            raise
        except kjit.Error as e:
            r = dict(p, __error__=RuntimeFailedConfig(), **failed)
            if "differs from answer" in str(e):
                raise
            try:
                dev.engine.synchronize()
            except kjit.Error:
                raise _ContextLost(p, e, r) from None
            # said, as the result holds only its mark (Kernel Tuner's logs it)
            _log.warning("configuration %s failed at run time: %s", p, e)
    r["timestamp"] = _timestamp()
    _log.debug("%s", r)
    if o["verbose"] and not o["quiet"]:
        print(", ".join("%s=%s" % (k2, r[k2]) for k2 in p) + ", " +
              ("time=%s" % r["time"] if "time" in r else str(r["__error__"])))
    return r


def _tune(o, engine, search=None):
    """Evaluates the configurations brute_force or random_sample choose
    (search None: compiled ahead, in parallel), or those search proposes;
    those the cache holds are taken from it, as Kernel Tuner takes them
    (no compile, verification or benchmark time; metrics computed again)."""
    start = time.perf_counter()
    _check_archs(o, engine)
    objective, higher = o["objective"], o["objective_higher_is_better"]
    configs = list(_space(o["tune_params"], o["restrictions"]))
    limit = (o["strategy_options"] or {}).get("time_limit")
    out_idx = _output_indices(o)
    results = []
    strategy_s = 0.0

    def over():  # before each evaluation, as Kernel Tuner checks
        return limit is not None and time.perf_counter() - start > float(limit)

    def tell(j, r):
        """Tells the search result r of its configuration j; the seconds taken."""
        t0 = time.perf_counter()
        search.tell(j, _answer(r, objective, higher))
        return time.perf_counter() - t0

    def evaluate(p, worker):
        """p's result: from the cache, else measured (worker: what _build()
        takes)."""
        r = cache.get(p)
        if r is None:
            try:
                r = _result(o, p, _build(o, p, engine, worker), dev, out_idx, checker)
            except _ContextLost as lost:
                cache.put(p, lost.result)  # a run with the cache goes on past it
                kept = ("; they are in the cache file %s, this configuration as "
                        "RuntimeFailedConfig, and a run with it goes on past it" % o["cache"]
                        if o["cache"] else " (with cache=, a run keeps them and goes on past "
                        "this configuration)")
                raise kjit.Error("KJIT_ERR_CUDA", "configuration %s: %s. The kernel left the GPU "
                                 "unusable to this process (a sticky CUDA error: every later "
                                 "call fails), so tuning stops here, after %d results%s"
                                 % (lost.p, lost.error, len(results), kept)) from None
            cache.put(p, r)
        else:
            r.update(compile_time=0, verification_time=0, benchmark_time=0)
            if not _failed(r):
                _metrics(o, r)
            r["timestamp"] = _timestamp()
        results.append(r)
        return r
    cpus = os.cpu_count() or 1
    with contextlib.ExitStack() as held:
        cache = _Cache(o["cache"], o, engine.device_name)
        held.callback(cache.close)
        if search is None:
            chosen = _choose(configs, o["strategy"], o["strategy_options"], o["seed"])
            misses = cache.misses(chosen)
            built = _Ahead(o, engine, min(cpus - _COMPILE_THREADS,
                                          (len(misses) - _COMPILE_THREADS) // 2))
            ready = built.batch(misses)  # compiling while the arguments are copied
        else:
            built = _Ahead(o, engine, cpus - _COMPILE_THREADS)
        held.callback(built.close)
        if o["sensed"]:
            engine.gpu_sensors()  # NVML's absence said before any tuning
        dev = _Device(engine, o["arguments"])
        held.push(dev.exit)
        checker = _Checker(o, out_idx)
        held.callback(checker.shutdown)
        if search is None:
            # the measured as they compile, then those found in the cache
            # (repeats of a measured one too), the results in chosen's order
            rank, ranks = {id(p): n for n, p in enumerate(chosen)}, {}
            compiled = {id(p) for p in misses}
            for p, b in itertools.chain((f.result() for f in as_completed(ready)),
                                        ((p, None) for p in chosen if id(p) not in compiled)):
                if over():
                    break
                ranks[id(evaluate(p, b))] = rank[id(p)]
            results.sort(key=lambda r: ranks[id(r)])
        else:
            pending, order = {}, itertools.count()  # future -> (order, the search's index)
            stopped = False
            while not stopped:
                t0 = time.perf_counter()
                batch = [] if over() else search.ask()
                strategy_s += time.perf_counter() - t0
                fresh = []
                for j, p in batch:  # what Kernel Tuner's cache holds is answered at once
                    if cache.get(p) is None:
                        fresh.append((j, p))
                    else:
                        strategy_s += tell(j, evaluate(p, None))
                for (j, p), f in zip(fresh, built.batch([p for _, p in fresh])):
                    pending[f] = (next(order), j)
                if not pending:
                    if batch:
                        continue
                    break
                done, _ = futures.wait(pending, return_when=futures.FIRST_COMPLETED)
                for f in sorted(done, key=lambda f: pending[f][0]):
                    j = pending.pop(f)[1]
                    stopped = over()
                    if stopped:
                        break
                    p, b = f.result()
                    strategy_s += tell(j, evaluate(p, b))
    total_ms = (time.perf_counter() - start) * 1e3
    env = {"device_name": engine.device_name, "arch": engine.arch,
           "compute_capability": engine.arch.split("_")[-1],
           "kjit_version": kjit.version(), "kernel_name": o["kernel_name"],
           "problem_size": ("callable" if callable(o["problem_size"])
                            else _plain(o["problem_size"])),
           "iterations": _plain(o["iterations"]), "compiler_options": o["compiler_options"],
           "strategy": o["strategy"] or "brute_force", "objective": objective,
           "configurations": len(configs), "evaluated": len(results),
           "total_time_ms": total_ms}
    _timings(results, env, strategy_s * 1e3, total_ms)
    if results:
        # Kernel Tuner's choice: a failure only when every result failed
        worst = -sys.float_info.max if higher else sys.float_info.max
        best = env["best_config"] = (max if higher else min)(
            results, key=lambda r: r[objective]
            if not _failed(r) and isinstance(r.get(objective), (int, float)) else worst)
        if not o["quiet"]:
            print("best performing configuration:",
                  ", ".join("%s=%s" % (k2, best[k2])
                            for k2 in list(o["tune_params"]) + [objective]))
    return results, env


_STAGES = ("compile_time", "verification_time", "benchmark_time")


def _timings(results, env, strategy_ms, total_ms):
    """Kernel Tuner's timings: each result's share of the strategy's time
    and of the rest (framework_time), and env's totals of each."""
    worker_ms = sum(r[k] for r in results for k in _STAGES)
    framework_ms = max(total_ms - strategy_ms - worker_ms, 0.0)
    for r in results:
        r["strategy_time"] = strategy_ms / len(results)
        r["framework_time"] = framework_ms / len(results)
    for k in _STAGES + ("strategy_time", "framework_time"):
        env["total_" + k] = sum(r[k] for r in results)
    env["overhead_time"] = total_ms - sum(env["total_" + k] for k in _STAGES +
                                          ("strategy_time", "framework_time"))
