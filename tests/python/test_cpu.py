"""The kjit Python package without a GPU: real NVRTC, real SQLite stores, real
kjit-tune processes, NumPy arrays. Run by tests/test-python.sh (make check),
with the package on PYTHONPATH, $KJIT_ARCH set and $KJIT_DB in a private folder.
"""
import collections
import inspect
import json
import math
import os
import pathlib
import pickle
import subprocess
import sys
import tempfile
import unittest
import warnings

import numpy as np

import kjit
import kjit.kernel_tuner as kt
from kjit import _types

SRC = os.environ.get("KJIT_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
SCALE = r'''
// a comment with scale(int x) in it
extern "C" __global__ void scale(float *__restrict__ y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}
'''

# Kernel Tuner 1.5.0's parameters, in order (kernel_tuner/interface.py)
KT_TUNE = ("kernel_name kernel_source problem_size arguments tune_params grid_div_x grid_div_y "
           "grid_div_z restrictions answer atol verify verbose lang device platform smem_args "
           "cmem_args texmem_args compiler compiler_options defines log iterations "
           "block_size_names quiet strategy strategy_options cache metrics simulation_mode "
           "parallel observers objective objective_higher_is_better objectives seed").split()
# Kernel Tuner 1.5.0's strategies (kernel_tuner/interface.py strategy_map)
KT_STRATEGIES = ("brute_force random_sample minimize basinhopping diff_evo genetic_algorithm "
                 "greedy_mls ordered_greedy_mls greedy_ils dual_annealing mls pso "
                 "simulated_annealing skopt firefly_algorithm bayes_opt pyatf_strategies "
                 "hybrid_vndx adaptive_tabu_greywolf nsga2 nsga3").split()
# those kjit runs, through kjit-tune's strategies but for the first two
KT_MAPPED = ("brute_force random_sample simulated_annealing genetic_algorithm pso "
             "dual_annealing bayes_opt skopt").split()
KT_RUN = ("kernel_name kernel_source problem_size arguments params grid_div_x grid_div_y "
          "grid_div_z lang device platform smem_args cmem_args texmem_args compiler "
          "compiler_options defines block_size_names quiet log").split()


class FakeDLPack:
    """A host array that says it is on CUDA device 0: the capsule is NumPy's own,
    so the address kjit reads from it can be compared with NumPy's."""

    def __init__(self, a):
        self.a = a

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None):
        self.stream = stream
        return self.a.__dlpack__()


class FakeCAI:
    def __init__(self, a, stream=None):
        self.__cuda_array_interface__ = dict(a.__array_interface__, version=3, stream=stream)


class Import(unittest.TestCase):
    def test_import_is_light(self):
        code = ("import sys, time; t = time.perf_counter(); import kjit; "
                "print(time.perf_counter() - t); "
                "print(sorted(m for m in ('numpy', 'torch', 'cupy', 'jax', 'numba') "
                "if m in sys.modules))")
        out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                             text=True).stdout.split("\n")
        self.assertEqual(out[1], "[]", "import kjit imported " + out[1])
        self.assertLess(float(out[0]), 0.5)  # <= 30 ms on the GPU machine; CI is slower

    def test_help_shows_docstrings(self):
        for obj in (kjit, kjit.Kernel, kjit.Engine, kjit.tunable, kjit.kernel, kjit.tune,
                    kt.tune_kernel, kt.run_kernel, kjit.Kernel.explain):
            self.assertTrue(obj.__doc__ and len(obj.__doc__) > 40, obj)


class OneBuild(unittest.TestCase):
    """The extension is built from libkjit's own build: its C files are the ones
    setup.py compiles, it calls only the public API, and a release carries
    every file of python/."""

    def test_sources_and_api(self):
        import glob
        import re
        with open(os.path.join(SRC, "python", "setup.py"), encoding="utf-8") as f:
            setup = f.read()
        with open(os.path.join(SRC, "include", "kjit.h"), encoding="utf-8") as f:
            header = f.read()
        for c in glob.glob(os.path.join(SRC, "python", "src", "*.c")):
            self.assertIn('"%s"' % os.path.basename(c), setup, c + " is not built")
            with open(c, encoding="utf-8") as f:
                for name in set(re.findall(r"\b(kjit_[a-z_]+)\(", f.read())):
                    self.assertTrue(re.search(r"\b%s\(" % name, header),
                                    "%s calls %s, which kjit.h does not declare" % (c, name))

    def test_release_carries_python(self):
        import glob
        with open(os.path.join(SRC, "tests", "python.mk"), encoding="utf-8") as f:
            mk = f.read()
        files = [os.path.relpath(f, SRC) for pattern in ("python/src/*", "python/kjit/*.py*",
                                                         "python/*.*", "tests/python/*.py")
                 for f in glob.glob(os.path.join(SRC, pattern))
                 if os.path.isfile(f)]  # not a build's kjit.egg-info folder
        for f in files:
            self.assertIn(f, mk, f + " is not in EXTRA_DIST (tests/python.mk)")


class Signatures(unittest.TestCase):
    def test_kernel_tuner_parameters(self):
        for f, want in ((kt.tune_kernel, KT_TUNE), (kt.run_kernel, KT_RUN)):
            self.assertEqual(list(inspect.signature(f).parameters), want)
        self.assertEqual(len(KT_TUNE), 37)
        self.assertEqual(len(KT_RUN), 20)

    def test_unsupported_named(self):
        a, n = np.zeros(64, np.float32), np.int32(64)
        cases = {"lang": {"lang": "OpenCL"}, "texmem_args": {"texmem_args": {"t": a}},
                 "platform": {"platform": 1}, "compiler": {"compiler": "g++"},
                 "strategy": {"strategy": "diff_evo"},
                 "strategy_options": {"strategy_options": {"popsize": 4}},
                 "simulation_mode": {"simulation_mode": True}, "parallel": {"parallel": 2},
                 "objectives": {"objectives": {"time": False}}, "observers": {"observers": [1]}}
        for name, kw in cases.items():
            with self.assertRaises(kt.UnsupportedParameter) as cm:
                kt.tune_kernel("scale", SCALE, 64, [a, a, np.float32(2), n],
                               {"block_size_x": [32, 64]}, **kw)
            self.assertTrue(str(cm.exception).startswith(name + ":"), str(cm.exception))
        with self.assertRaises(kt.UnsupportedParameter):
            kt.run_kernel("scale", SCALE, 64, [a, a, np.float32(2), n], {}, lang="HIP")

    def test_compiler_options(self):
        """compiler_options as nvcc and NVRTC take them: include folders by
        -I (joined, with =, or the next item) and --include-path become the
        kernel's include folders; -arch is the GPU's own or refused by name;
        the rest are passed on."""
        flags, dirs, archs = kt._compiler_options(
            ["-I", "inc", "-I/abs", "-I=rel", "--include-path=p", "--include-path", "q",
             "-use_fast_math", "-arch=sm_90", "--gpu-architecture", "compute_90", "-DX=1"])
        self.assertEqual(flags, ["-use_fast_math", "-DX=1"])
        self.assertEqual(dirs, [os.path.abspath(d) for d in ("inc", "/abs", "rel", "p", "q")])
        self.assertEqual(archs, ["sm_90", "compute_90"])
        with self.assertRaisesRegex(ValueError, "-I without its value"):
            kt._compiler_options(["-O3", "-I"])
        gpu = type("Engine", (), {"arch": "sm_90"})()
        kt._check_archs({"flag_archs": archs}, gpu)
        with self.assertRaises(kt.UnsupportedParameter) as cm:
            kt._check_archs({"flag_archs": ["sm_52"]}, gpu)
        self.assertIn("-arch=sm_52: kjit compiles for the GPU's architecture, sm_90",
                      str(cm.exception))
        with tempfile.TemporaryDirectory() as d:  # a header found through -I
            with open(os.path.join(d, "scale_by.h"), "w") as f:
                f.write("#define SCALE_BY 3.0f\n")
            o = {"kernel_source": '#include "scale_by.h"\n' + SCALE, "kernel_name": "scale",
                 "compiler_options": ["-I", d], "problem_size": 64, "grid_div_x": None,
                 "grid_div_y": None, "grid_div_z": None, "block_size_names": None,
                 "defines": None, "tune_params": {"block_size_x": [32]}, "log": None,
                 "lang": None, "platform": 0, "texmem_args": None, "compiler": None,
                 "cmem_args": None, "smem_args": None}
            kt._check_common(o)
            e = kjit.Engine(db_path=os.path.join(d, "k.db"), arch="sm_90", gpu=False)
            k, _, _, _ = kt._make_kernel(o, {"block_size_x": 32}, e)
            self.assertGreater(k.compile()["binary_size"], 0)

    def test_observers(self):
        """Kernel Tuner's NVMLObserver (a stand-in with its attributes): energy
        and power, temperature and clocks are taken, anything else refused by
        name."""
        class NVMLObserver:
            def __init__(self, observables):
                power = [x for x in observables if x in ("nvml_energy", "nvml_power",
                                                         "power_readings")]
                self.observables = [x for x in observables if x not in power]
                self.continuous_observer = type("C", (), {"observables": power})()
        self.assertEqual(kt._observables([NVMLObserver(["nvml_energy", "nvml_power"])]),
                         (["nvml_energy", "nvml_power"], []))
        self.assertEqual(kt._observables([NVMLObserver(["nvml_energy", "temperature"]),
                                          NVMLObserver(["mem_freq", "core_freq"])]),
                         (["nvml_energy"], ["temperature", "mem_freq", "core_freq"]))
        for obs, want in ((NVMLObserver(["nvml_energy", "gr_voltage"]), "gr_voltage"),
                          (NVMLObserver(["power_readings"]), "power_readings"),
                          (object(), "object")):
            with self.assertRaises(kt.UnsupportedParameter) as cm:
                kt._observables([obs])
            self.assertIn(want, str(cm.exception))

    def test_no_gpu_is_kjits_error(self):
        if kjit.default_engine().has_gpu:
            self.skipTest("a GPU is here")
        a, n = np.zeros(64, np.float32), np.int32(64)
        for call in (lambda: kt.tune_kernel("scale", SCALE, 64, [a, a, np.float32(2), n],
                                            {"block_size_x": [32, 64]}),
                     lambda: kt.run_kernel("scale", SCALE, 64, [a, a, np.float32(2), n],
                                           {"block_size_x": 32})):
            with self.assertRaises(kjit.NoGPUError) as cm:
                call()
            self.assertIn("needs a GPU", str(cm.exception))

    def test_arguments_checked_before_the_gpu(self):
        with self.assertRaises(kjit.ArgumentError):
            kt.tune_kernel("scale", SCALE, 64, [[1, 2]], {"block_size_x": [32]})


def search(tune_params, strategy, restrictions=None, seed=None, block_size_names=None,
           **options):
    """A search by kjit's strategy (a kjit.Search), as tune_kernel() runs it
    (the options it reads), started."""
    return kt._Search({"tune_params": tune_params, "restrictions": restrictions,
                       "block_size_names": block_size_names, "kernel_name": "k",
                       "strategy": strategy, "strategy_options": options, "seed": seed})


def run_search(s, objective, batches=None):
    """Answers every proposal of s with objective(params) (None: fail), a
    batch at a time; returns the proposals (and appends each batch's size
    to batches)."""
    seen = []
    while batch := s.ask():
        if batches is not None:
            batches.append(len(batch))
        for j, p in batch:
            seen.append(p)
            v = objective(p)
            s.tell(j, math.inf if v is None else v)
    s.close()
    return seen


def one_at_a_time(s, objective):
    """The proposals of s's kjit.Search asked and told one at a time, as
    kjit-tune asks them with one GPU (what is known told again from
    memory)."""
    seen, known = [], {}
    while len(seen) < s.left:
        j = s.search.ask()
        if j is None:
            break
        if j not in known:
            p = {k: v[i] for (k, v), i in zip(s.values.items(), s.space.indices(j))}
            v = objective(p)
            known[j] = math.inf if v is None else v
            seen.append(p)
        s.search.tell(j, known[j])
    return seen


class Strategies(unittest.TestCase):
    """Kernel Tuner's strategies by name: kjit's strategies (kjit.Search,
    through the C library), or refused by name."""
    SPACE = {"block_size_x": [32, 64, 128, 256, 512, 1024, 2048], "tile": [1, 2, 4, 8],
             "unroll": [True, False], "algo": ["plain", "shuffle"]}
    RESTRICT = ["block_size_x * tile <= 2048", "algo == 'plain' or block_size_x >= 64"]

    def valid(self):
        keys = list(self.SPACE)
        out = []
        for values in __import__("itertools").product(*self.SPACE.values()):
            p = dict(zip(keys, values))
            if (p["block_size_x"] * p["tile"] <= 2048 and p["block_size_x"] <= 1024 and
                    (p["algo"] == "plain" or p["block_size_x"] >= 64)):
                out.append(p)
        return out

    @staticmethod
    def cost(p):
        if p["tile"] == 8 and p["block_size_x"] == 32:
            return None  # a configuration that fails
        return (abs(p["block_size_x"].bit_length() - 8) + abs(p["tile"] - 4) +
                (0.5 if p["unroll"] else 0) + (0.25 if p["algo"] == "plain" else 0) + 1.0)

    def test_every_name(self):
        """Each of Kernel Tuner 1.5.0's strategies runs or is refused naming it."""
        a, n = np.zeros(64, np.float32), np.int32(64)
        for name in KT_STRATEGIES:
            if name in KT_MAPPED:
                continue
            with self.assertRaises(kt.UnsupportedParameter) as cm:
                kt.tune_kernel("scale", SCALE, 64, [a, a, np.float32(2), n],
                               {"block_size_x": [32, 64]}, strategy=name)
            self.assertTrue(str(cm.exception).startswith("strategy: %r (Kernel Tuner's " % name),
                            str(cm.exception))
            self.assertIn("no kjit counterpart", str(cm.exception))
        valid = self.valid()
        for name in KT_MAPPED[2:] + ["hybrid", "annealing", "exhaustive"]:
            seen = run_search(search(self.SPACE, name, self.RESTRICT, seed=5, max_fevals=20),
                              self.cost)
            self.assertEqual(len(seen), 20, name)
            self.assertTrue(all(p in valid for p in seen), name)
            self.assertEqual(len({tuple(p.values()) for p in seen}), 20, name)
            # a seed repeats the search
            again = run_search(search(self.SPACE, name, self.RESTRICT, seed=5, max_fevals=20),
                               self.cost)
            self.assertEqual(seen, again, name)
        with self.assertRaises(kt.UnsupportedParameter) as cm:
            search(self.SPACE, "hill_climbing")
        self.assertIn("unknown strategy 'hill_climbing'", str(cm.exception))

    def test_whole_space_and_best(self):
        """Without max_fevals a strategy runs until it ends: at most the space,
        each configuration once; with the space's size, the best is found."""
        valid = self.valid()
        best = min((p for p in valid if self.cost(p) is not None), key=self.cost)
        for name in ("pso", "genetic_algorithm", "bayes_opt", "dual_annealing",
                     "simulated_annealing"):
            seen = run_search(search(self.SPACE, name, self.RESTRICT, max_fevals=len(valid)),
                              self.cost)
            self.assertLessEqual(len(seen), len(valid), name)
            self.assertEqual(len({tuple(p.values()) for p in seen}), len(seen), name)
            if len(seen) == len(valid):
                self.assertIn(best, seen, name)
        seen = run_search(search(self.SPACE, "brute_force", self.RESTRICT), self.cost)
        # exhaustive: every one once, in an order the seed shuffles (tune_kernel's
        # brute_force keeps Kernel Tuner's order: test_random_sample_and_brute_force)
        self.assertCountEqual(seen, valid)
        self.assertNotEqual(seen, valid)
        for p in seen:  # the values are the tune_params' own objects
            self.assertIs(type(p["unroll"]), bool)
            self.assertIs(type(p["algo"]), str)

    def test_stopping_early(self):
        """Closing the search (time_limit) ends it cleanly, with nothing to
        warn of."""
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            s = search(self.SPACE, "genetic_algorithm", self.RESTRICT)
            first = s.ask()
            s.tell(first[0][0], 1.5)
            s.close()
        self.assertTrue(first)
        self.assertEqual(s.ask(), [])

    def test_generations_at_once(self):
        """The genetic algorithm's generation comes as one batch (compiled
        side by side), with the same proposals as one at a time; the
        others come one at a time."""
        for seed, popsize in ((5, None), (9, 7)):
            options = {"max_fevals": 40} if popsize is None else {"max_fevals": 40,
                                                                   "popsize": popsize}
            batches = []
            seen = run_search(search(self.SPACE, "genetic_algorithm", self.RESTRICT, seed=seed,
                                     **options), self.cost, batches)
            self.assertEqual(seen, one_at_a_time(search(self.SPACE, "genetic_algorithm",
                                                        self.RESTRICT, seed=seed, **options),
                                                 self.cost))
            self.assertEqual(sum(batches), 40)
            self.assertEqual(batches[0], popsize or 20)  # Kernel Tuner's population of 20
        for name in ("pso", "hybrid", "bayes_opt"):
            batches = []
            seen = run_search(search(self.SPACE, name, self.RESTRICT, seed=5, max_fevals=15),
                              self.cost, batches)
            self.assertEqual(batches, [1] * 15, name)
            self.assertEqual(seen, one_at_a_time(search(self.SPACE, name, self.RESTRICT, seed=5,
                                                        max_fevals=15), self.cost), name)

    def test_options(self):
        a, n = np.zeros(64, np.float32), np.int32(64)
        args = ["scale", SCALE, 64, [a, a, np.float32(2), n], {"block_size_x": [32, 64]}]
        refused = {"x0": ("pso", {"x0": [32]}),
                   "fraction: not an option of strategy 'pso'": ("pso", {"fraction": 0.5}),
                   "mutation_chance: not an option of strategy 'pso'":
                       ("pso", {"mutation_chance": 3}),
                   "max_fevals: expected a count of 1 or more (got 0)":
                       ("genetic_algorithm", {"max_fevals": 0}),
                   "max_fevals: expected a count of 1 or more (got 2.5)":
                       ("brute_force", {"max_fevals": 2.5}),
                   "time_limit: expected seconds > 0 (got '10')":
                       ("bayes_opt", {"time_limit": "10"}),
                   "time_limit: expected seconds > 0 (got 0)":
                       ("random_sample", {"time_limit": 0}),
                   "strategy 'hybrid': setting 'popsize=3': strategy "
                   "hybrid has no options": ("hybrid", {"popsize": 3}),
                   "strategy 'genetic_algorithm': setting 'popsize=0': "
                   "strategy genetic takes popsize (a count from 1 to 4096); its options: "
                   "popsize": ("genetic_algorithm", {"popsize": 0}),
                   "strategy 'simulated_annealing': setting 'alpha=True'":
                       ("simulated_annealing", {"alpha": True}),
                   "strategy 'bayes_opt': setting 'num_initial=-1': "
                   "strategy surrogate takes num_initial": ("bayes_opt", {"popsize": -1})}
        for want, (strategy, options) in refused.items():
            with self.assertRaises(kt.UnsupportedParameter) as cm:
                kt.tune_kernel(*args, strategy=strategy, strategy_options=options)
            self.assertIn("strategy_options: " + want, str(cm.exception))
        for strategy, options, named in (
                ("bayes_opt", {"popsize": 10, "method": "ei", "covariancekernel": "rbf",
                               "max_fevals": 3}, "covariancekernel, method"),
                ("pso", {"constraint_aware": False, "w": 0.3}, "constraint_aware"),
                ("dual_annealing", {"method": "COBYLA"}, "method"),
                ("skopt", {"kappa": 2.0, "num_initial": 4, "acq_func": "EI"}, "acq_func, kappa"),
                ("bayes_opt", {"searchspace_construction_options": {}},
                 "searchspace_construction_options"),
                ("hybrid", {"searchspace_construction_options": {}, "max_fevals": 3},
                 "searchspace_construction_options")):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                kt._check_strategy(strategy, options)
            self.assertEqual(len(caught), 1, strategy)
            self.assertIn("strategy %r: strategy_options %s set Kernel Tuner's own "
                          "implementation" % (strategy, named), str(caught[0].message))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # nothing to warn of
            kt._check_strategy("pso", {"constraint_aware": True, "max_fevals": 4,
                                       "time_limit": 1.5, "popsize": 8, "maxiter": 3,
                                       "w": 0.3, "c1": 2, "c2": 2})
            kt._check_strategy("random_sample", {"fraction": 0.5})
            kt._check_strategy("genetic_algorithm", {"popsize": 10, "maxiter": 5,
                                                     "method": "two_point",
                                                     "mutation_chance": 20})
            kt._check_strategy("simulated_annealing", {"T": 1.0, "T_min": 0.001,
                                                       "alpha": 0.99, "maxiter": 2})

    def test_options_passed(self):
        """Kernel Tuner's options that kjit's strategy has reach it, by its
        names; they change what it proposes."""
        args = kt._strategy_settings
        self.assertEqual(args("bayes_opt", {"popsize": 5, "method": "ei", "max_fevals": 9}),
                         ["num_initial=5"])
        self.assertEqual(args("skopt", {"num_initial": None, "kappa": 2}), [])
        self.assertEqual(args("simulated_annealing", {"T": 0.25, "alpha": 0.99, "maxiter": 2,
                                                      "constraint_aware": True}),
                         ["T=0.25", "alpha=0.99", "maxiter=2"])
        self.assertEqual(args("genetic_algorithm", {"method": "uniform", "mutation_chance": 5,
                                                    "popsize": 8, "maxiter": 4}),
                         ["maxiter=4", "method=uniform", "mutation_chance=5", "popsize=8"])
        self.assertEqual(args("pso", {"w": 0.5, "c1": 1, "c2": 2.5, "popsize": 4, "maxiter": 3}),
                         ["c1=1", "c2=2.5", "maxiter=3", "popsize=4", "w=0.5"])
        self.assertEqual(args("dual_annealing", {"method": "COBYLA"}), [])
        self.assertEqual(args("genetic", {"popsize": 4, "max_fevals": 9, "time_limit": 2}),
                         ["popsize=4"])
        # genetic: generations of popsize, maxiter of them; pso: its swarm
        plain = run_search(search(self.SPACE, "genetic_algorithm", self.RESTRICT, seed=5),
                           self.cost)
        few = run_search(search(self.SPACE, "genetic_algorithm", self.RESTRICT, seed=5,
                                popsize=4, maxiter=3, method="single_point"), self.cost)
        self.assertGreater(len(plain), 12)
        self.assertTrue(4 < len(few) <= 8, few)
        self.assertEqual(plain[:4], few[:4])  # generation 0: the same draws
        swarm = run_search(search(self.SPACE, "pso", self.RESTRICT, seed=5, popsize=3,
                                  maxiter=1), self.cost)
        self.assertEqual(len(swarm), 3)
        sa = [run_search(search(self.SPACE, "simulated_annealing", self.RESTRICT, seed=5,
                                max_fevals=30, **o), self.cost)
              for o in ({}, {"T": 0.002, "maxiter": 3})]
        self.assertNotEqual(sa[0], sa[1])
        with self.assertRaises(kt.UnsupportedParameter) as cm:
            search(self.SPACE, "simulated_annealing", self.RESTRICT, seed=5, T=1e-9)
        self.assertIn("T_min (0.001) is above T (1e-09)", str(cm.exception))
        own = run_search(search(self.SPACE, "genetic", self.RESTRICT, seed=5, popsize=4,
                                maxiter=3), self.cost)
        self.assertEqual(own, run_search(search(self.SPACE, "genetic_algorithm", self.RESTRICT,
                                                seed=5, popsize=4, maxiter=3), self.cost))

    def test_space_forms(self):
        """What kjit's space needs: restrictions as strings, values of one
        type; the block's threads limited to 1024 by block_size_names."""
        with self.assertRaises(kt.UnsupportedParameter) as cm:
            search({"x": [1, 2]}, "pso", restrictions=lambda p: p["x"] > 1)
        self.assertIn("restrictions: <lambda>: a function", str(cm.exception))
        with self.assertRaises(kt.UnsupportedParameter) as cm:
            search({"x": [1, "two"]}, "pso")
        self.assertIn("tune_params: x: values of one type", str(cm.exception))
        seen = run_search(search({"bx": [256, 1024, 2048], "by": [1, 2]}, "exhaustive",
                                 block_size_names=["bx", "by"]), lambda p: 1.0)
        self.assertCountEqual(seen, [{"bx": 256, "by": 1}, {"bx": 256, "by": 2},
                                     {"bx": 1024, "by": 1}])
        seen = run_search(search({"f": [np.float32(0.5), np.float32(1.5)], "n": [np.int64(3)]},
                                 "exhaustive"), lambda p: 1.0)
        self.assertCountEqual(seen, [{"f": 0.5, "n": 3}, {"f": 1.5, "n": 3}])
        with self.assertRaises(kjit.ArgumentError) as cm:
            search({"x": [1, 2]}, "pso", restrictions=["y > 1"])
        self.assertIn("unknown name 'y'", str(cm.exception))
        with self.assertRaises(kjit.ArgumentError) as cm:
            search({"x": [1, 2]}, "pso", restrictions=["x > 5"])
        self.assertIn("no valid configuration", str(cm.exception))

    def test_random_sample_and_brute_force(self):
        """The configurations random_sample takes, as Kernel Tuner 1.5.0's:
        max_fevals, else the fraction (0.1 by default) rounded up."""
        configs = [{"x": i} for i in range(25)]
        for options, want in (({}, 3), ({"fraction": 0.5}, 13), ({"max_fevals": 4}, 4),
                              ({"max_fevals": 4, "fraction": 0.5}, 4),
                              ({"max_fevals": 99}, 25)):
            chosen = kt._choose(configs, "random_sample", options, 1)
            self.assertEqual(len(chosen), want, options)
            self.assertEqual(len({c["x"] for c in chosen}), want, options)
        self.assertEqual(kt._choose(configs, "brute_force", {}, 1), configs)
        self.assertEqual(kt._choose(configs, None, {}, 1), configs)
        self.assertEqual(len(kt._choose(configs, "brute_force", {"max_fevals": 5}, 1)), 5)
        for bad in (0, 1.5, "0.5", True):
            with self.assertRaises(kt.UnsupportedParameter) as cm:
                kt._check_strategy("random_sample", {"fraction": bad})
            self.assertIn("fraction: expected 0 < F <= 1", str(cm.exception))

    def test_answers(self):
        """What the strategy is told: lower is better, 1 / value when higher is."""
        self.assertEqual(kt._answer({"time": 2.0}, "time", False), 2.0)
        self.assertEqual(kt._answer({"GFLOP/s": 4.0}, "GFLOP/s", True), 0.25)
        self.assertEqual(kt._answer({"GFLOP/s": 0.0}, "GFLOP/s", True), math.inf)
        for r in ({"__error__": kt.CompilationFailedConfig()}, {"time": float("nan")}, {}):
            self.assertEqual(kt._answer(r, "time", False), math.inf)
        with self.assertRaises(kt.UnsupportedParameter) as cm:
            kt._answer({"score": -1.0}, "score", False)
        self.assertIn("objective: score = -1.0", str(cm.exception))

    def test_no_gpu_after_the_space(self):
        """Without a GPU every strategy kjit runs gets as far as the GPU (through
        kjit's space for those it searches)."""
        if kjit.default_engine().has_gpu:
            self.skipTest("a GPU is here")
        a, n = np.zeros(64, np.float32), np.int32(64)
        for strategy in KT_MAPPED + ["hybrid"]:
            with self.assertRaises(kjit.NoGPUError):
                kt.tune_kernel("scale", SCALE, 64, [a, a, np.float32(2), n],
                               {"block_size_x": [32, 64]}, strategy=strategy,
                               strategy_options={"max_fevals": 1})
        with self.assertRaises(kjit.ArgumentError):  # the space before the GPU
            kt.tune_kernel("scale", SCALE, 64, [a, a, np.float32(2), n],
                           {"block_size_x": [32, 64]}, restrictions=["nope > 1"],
                           strategy="pso")


def tune_options(**kw):
    """tune_kernel()'s options as it reads them (its defaults, then kw),
    checked as it checks them."""
    o = {k: p.default for k, p in inspect.signature(kt.tune_kernel).parameters.items()
         if p.default is not inspect.Parameter.empty}
    o.update(kernel_name="scale", kernel_source=SCALE, problem_size=64,
             tune_params={"block_size_x": [32, 64]})
    o.update(kw)
    kt._check_common(o)
    kt._check_tuning(o)
    return o


def check(o, out_idx, outputs):
    """kjit.kernel_tuner's check of one run's outputs, as tuning makes it."""
    checker = kt._Checker(o, out_idx)
    try:
        return checker.submit(outputs).result()
    finally:
        checker.shutdown()


class KernelTunerInputs(unittest.TestCase):
    """Kernel Tuner scripts' inputs, read and refused as Kernel Tuner 1.5.0
    reads and refuses them, before any GPU is looked for."""

    def setUp(self):
        self.a, self.n = np.zeros(64, np.float32), np.int32(64)
        self.args = [self.a, self.a, np.float32(2), self.n]

    def tune(self, tune_params=None, **kw):
        return kt.tune_kernel("scale", kw.pop("kernel_source", SCALE), kw.pop("problem_size", 64),
                              kw.pop("arguments", self.args),
                              tune_params or {"block_size_x": [32, 64]}, **kw)

    def test_refusals(self):
        """Each refusal with Kernel Tuner's exception type."""
        with tempfile.TemporaryDirectory() as d:
            c_file = os.path.join(d, "host.c")
            with open(c_file, "w") as f:
                f.write("void scale(float *y, const float *x, float a, int n) {}\n")
            cases = [
                (dict(tune_params={"block_size_x": [32], "time": [1]}), ValueError,
                 "Tune parameter time with value [1] has a forbidden name"),
                (dict(tune_params={"block_size_x": [32], "grid_size_y": [1]}), ValueError,
                 "forbidden name"),
                (dict(tune_params={"block_size_x": [32], "nvml_gr_clock": [1000]}), ValueError,
                 "nvml_gr_clock: Tune parameters starting with nvml_ require an NVMLObserver"),
                (dict(block_size_names=("block_size_x",)), ValueError,
                 "block_size_names should be a list of strings"),
                (dict(block_size_names=["a", "b", "c", "d"]), ValueError, "more than 3 names"),
                (dict(block_size_names=["block_size_x", 2]), ValueError, "only strings"),
                (dict(objective="GFLOPS"), ValueError,
                 "Please specify objective_higher_is_better for objective GFLOPS"),
                (dict(objectives=["time"]), ValueError, "objectives should be a dict"),
                (dict(objective=["time", "GB/s"], objective_higher_is_better=[False, True]),
                 kt.UnsupportedParameter, "objective: ['time', 'GB/s']: multi-objective"),
                (dict(metrics=[("GFLOP/s", "1 / time")]), ValueError,
                 "metrics should be a dictionary"),
                (dict(metrics={"GFLOP/s": 2.0}), ValueError,
                 "metrics['GFLOP/s']: metric dicts values should be strings or callable"),
                (dict(strategy="hill_climbing"), ValueError, "unknown strategy 'hill_climbing'"),
                (dict(strategy="random_sample", strategy_options={"max_fevals": 0}), ValueError,
                 "max_fevals"),
                (dict(strategy="random_sample", strategy_options={"popsize": 3}), ValueError,
                 "popsize: not an option of strategy 'random_sample'"),
                (dict(strategy="brute_force",
                      strategy_options={"searchspace_construction_options": {}}), ValueError,
                 "not an option of strategy 'brute_force'"),
                (dict(answer=[None, None]), TypeError, "answer: 2 entries for 4 arguments"),
                (dict(answer=[np.zeros(64, np.int32), None, None, None]), TypeError,
                 "answer[0]: its dtype int32 is not compatible with the kernel output's float32"),
                (dict(answer=[np.zeros(32, np.float32), None, None, None]), ValueError,
                 "answer[0]: its size 32 differs from the argument's 64"),
                (dict(answer=[None, None, np.float32(2), None]), TypeError,
                 "answer[2]: the argument is a float32"),
                (dict(kernel_source=os.path.join(d, "missing.cu")), FileNotFoundError,
                 "missing.cu"),
                (dict(kernel_source=lambda p: SCALE), TypeError,
                 "lang: Kernel Tuner needs the language"),
                (dict(kernel_source=42), TypeError, "kernel_source: expected code or a file"),
                (dict(kernel_source=c_file), kt.UnsupportedParameter,
                 "lang: kernel_source has no __global__ function, so Kernel Tuner takes it "
                 "for C"),
                (dict(kernel_source="__kernel void scale() {}"), kt.UnsupportedParameter,
                 "takes it for OpenCL"),
                (dict(arguments=[[1.0, 2.0]]), TypeError, "arguments[0]: expected a NumPy"),
            ]
            for kw, exc, want in cases:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    with self.assertRaises(exc, msg=kw) as cm:
                        self.tune(**kw)
                self.assertIn(want, str(cm.exception), kw)
        with self.assertRaises(ValueError) as cm:
            kt.run_kernel("scale", SCALE, 64, self.args, {"block_size_x": 32},
                          block_size_names="block_size_x")
        self.assertIn("block_size_names should be a list", str(cm.exception))

    def test_accepted_forms(self):
        """What Kernel Tuner scripts pass gets as far as the GPU: kjit.NoGPUError
        here, where Kernel Tuner raises its RuntimeError for a missing CUDA."""
        if kjit.default_engine().has_gpu:
            self.skipTest("a GPU is here")
        self.assertTrue(issubclass(kjit.NoGPUError, RuntimeError))

        def verify(answer, result):  # no atol: Kernel Tuner calls it without
            return True
        metrics = collections.OrderedDict()
        metrics["GB/s"] = lambda p: 3 * 64 * 4 / (p["time"] / 1e3) / 1e9
        metrics["GB/s2"] = "2 * GB/s"
        with tempfile.TemporaryDirectory() as d:
            path = pathlib.Path(d) / "scale.cu"
            path.write_text(SCALE)
            header = os.path.join(d, "scale_helpers.cuh")
            with open(header, "w") as f:
                f.write("#define HELPER 1\n")
            for kw in (dict(kernel_source=path), dict(kernel_source=str(path)),
                       dict(kernel_source=[str(path), header]),
                       dict(kernel_source=lambda p: SCALE, lang="CUDA"),
                       dict(lang="PyCUDA"), dict(lang="cupy"), dict(lang="NVCUDA"),
                       dict(restrictions="block_size_x > 32"),
                       dict(restrictions=["block_size_x > 32", "block_size_x < 1024"]),
                       dict(restrictions=lambda p: p["block_size_x"] > 32),
                       dict(problem_size=(64, 1)), dict(problem_size="2 * 32"),
                       dict(problem_size=lambda p: (64,)),
                       dict(grid_div_x=["block_size_x", lambda p: 1]), dict(grid_div_x=[]),
                       dict(answer=[np.zeros(64, np.float64), None, None, None]),
                       dict(answer=[None] * 4, verify=verify, atol=1e-3),
                       dict(metrics=metrics, objective="GB/s"),
                       dict(objective="score", objective_higher_is_better=True),
                       dict(defines={"N": 64, "BLOCK": lambda p: p["block_size_x"]}),
                       dict(strategy="random_sample",
                            strategy_options={"fraction": 0.5, "time_limit": 10}),
                       dict(cache=os.path.join(d, "cache")), dict(iterations=3, seed=5,
                                                                  quiet=True, verbose=True)):
                with self.assertRaises(kjit.NoGPUError, msg=kw):
                    self.tune(**kw)

    def test_warnings(self):
        """Kernel Tuner's warnings: arguments that do not match the kernel's
        declaration, block size names."""
        cases = [
            (dict(arguments=self.args[:3]),
             "Kernel (4) and host argument (3) lists do not match in size."),
            (dict(arguments=[self.a, self.a, np.float32(2), np.float32(64)]),
             "Argument at position 3 of dtype: float32 does not match int n."),
            (dict(arguments=[self.a, self.a, self.a, self.n]),
             "Argument at position 2 of dtype: float32 does not match float a."),
            (dict(tune_params={"threads": [32]}),
             "None of the tunable parameters specify thread block dimensions!"),
            (dict(block_size_names=["threads"]),
             "Block size name threads is not specified in the tunable parameters list!"),
        ]
        for kw, want in cases:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                try:
                    self.tune(**kw)
                except kjit.NoGPUError:
                    pass
            self.assertIn(want, [str(w.message) for w in caught], kw)
        with warnings.catch_warnings():  # a generator's source is not read
            warnings.simplefilter("error")
            with self.assertRaises(kjit.NoGPUError if not kjit.default_engine().has_gpu
                                   else Exception):
                self.tune(arguments=self.args[:3], kernel_source=lambda p: SCALE, lang="CUDA")

    def test_geometry_and_defines(self):
        """Problem sizes, grid divisors, block sizes and defines as Kernel
        Tuner computes them."""
        p = {"block_size_x": 32, "block_size_y": 4, "tile": 2}
        self.assertEqual(kt._problem(1000, p), [1000, 1, 1])
        self.assertEqual(kt._problem(np.int64(10), p), [10, 1, 1])
        self.assertEqual(kt._problem(("tile * 100", 20), p), [200, 20, 1])
        self.assertEqual(kt._problem(lambda q: (q["tile"], 3), p), [2, 3, 1])
        for bad in ((10.0,), (1, 2, 3, 4)):
            with self.assertRaises((TypeError, ValueError)):
                kt._problem(bad, p)
        self.assertEqual(kt._grid_div(None, p, "block_size_x"), 32)
        self.assertEqual(kt._grid_div(["block_size_x", "tile", 2], p, None), 128)
        self.assertEqual(kt._grid_div([lambda q: q["tile"], "block_size_x/3"], p, None), 20)
        self.assertEqual(kt._grid_div([], p, "block_size_x"), 1)
        with self.assertRaises(ValueError) as cm:
            kt._grid_div(2.5, p, None, "y")
        self.assertIn("grid_div_y: unrecognized type", str(cm.exception))
        o = dict(block_size_names=kt._block_names(None), problem_size=(1000, "tile * 50"),
                 grid_div_x=None, grid_div_y=["tile"], grid_div_z=None, defines=None)
        self.assertEqual(kt._geometry(o, p), ((32, 50, 1), (32, 4, 1)))
        self.assertEqual(kt._geometry(dict(o, block_size_names=kt._block_names(["tile"])), p),
                         ((500, 50, 1), (2, 4, 1)))
        self.assertEqual(kt._defines(o, p, (32, 50, 1), (32, 4, 1)),
                         {"grid_size_x": 32, "grid_size_y": 50, "grid_size_z": 1,
                          "block_size_x": 32, "block_size_y": 4, "block_size_z": 1, "tile": 2,
                          "kernel_tuner": 1})
        # defines= replaces them all: values, strings filled in, functions
        o["defines"] = {"N": 7, "SIZE": "block_size_x * tile", "F": lambda q: q["tile"] + 1}
        self.assertEqual(kt._defines(o, p, (1, 1, 1), (1, 1, 1)),
                         {"N": 7, "SIZE": "32 * 2", "F": 3})
        o["defines"] = {"not valid": 1}
        with self.assertRaises(ValueError):
            kt._defines(o, p, (1, 1, 1), (1, 1, 1))
        # BLOCK_SIZE_X spells a default name: Kernel Tuner takes it as the block's x
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            self.assertEqual(kt._block_names(None, {"BLOCK_SIZE_X": [32], "n": [1]}),
                             ["BLOCK_SIZE_X", "block_size_y", "block_size_z"])
            self.assertEqual(kt._block_names(["bx"], {"bx": [1]}),
                             ["bx", "block_size_y", "block_size_z"])

    def test_unroll_factors(self):
        """loop_unroll_factor parameters, as Kernel Tuner passes them in CUDA:
        a constexpr int for #pragma unroll, or at 0 the pragma removed; the
        kernel compiles either way."""
        src = SCALE.replace("if (i < n)", "#pragma unroll loop_unroll_factor_0\n"
                            "    for (int j = 0; j < 4; j++)\n    if (i < n)")
        for factor, pragma in ((2, True), (0, False)):
            text, defines = kt._unroll_factors(src, {"loop_unroll_factor_0": factor, "B": 1})
            self.assertEqual(defines, {"B": 1})
            self.assertEqual("#pragma unroll" in text, pragma)
            self.assertEqual(text.startswith("constexpr int loop_unroll_factor_0 = 2;\n"
                                             "#line 1\n"), pragma)
            kjit.kernel(text, "scale", params=defines).compile()

    def test_sources(self):
        with tempfile.TemporaryDirectory() as d:
            main, extra = os.path.join(d, "k.cu"), os.path.join(d, "sub", "h.cuh")
            os.mkdir(os.path.dirname(extra))
            for f in (main, extra):
                with open(f, "w") as fh:
                    fh.write(SCALE)
            self.assertEqual(kt._source([main, extra], {}),
                             (SCALE, sorted([d, os.path.dirname(extra)])))
            self.assertEqual(kt._source([SCALE, extra], {}), (SCALE, [os.path.dirname(extra)]))
            with self.assertRaises(ValueError) as cm:
                kt._source([main, SCALE], {})
            self.assertIn("secondary entries must be filenames", str(cm.exception))
            self.assertEqual(kt._source(lambda p: "code %d" % p["x"], {"x": 3}), ("code 3", []))

    def test_restrictions(self):
        """Each form of Kernel Tuner's restrictions selects the same space;
        the block's threads are limited to 1024 through the default names."""
        tp = {"block_size_x": [16, 32, 64], "t": [1, 2, 4]}

        def positional(bx, t):  # a function gets every value, in order
            return bx * t <= 64

        def whole(p):  # alone, with one argument: the configuration
            return p["block_size_x"] * p["t"] <= 64
        want = [{"block_size_x": b, "t": t} for b, t in
                ((16, 1), (16, 2), (16, 4), (32, 1), (32, 2), (64, 1))]
        for r in ("block_size_x * t <= 64", ["block_size_x * t <= 64"], [positional],
                  positional, whole, (whole,), [lambda p: p["block_size_x"] * p["t"] <= 64],
                  [lambda block_size_x, t: block_size_x * t <= 64],
                  ["min(block_size_x * t, 100) <= 64"]):
            self.assertEqual(list(kt._space(tp, r)), want, r)
        self.assertEqual(list(kt._space({"x": [1, 2, 3]}, [lambda x: x > 1])),
                         [{"x": 2}, {"x": 3}])
        # a lambda of one parameter among several gets that parameter, alone or not
        xy = {"x": [1, 2, 3, 4], "y": [1, 2]}
        for r in (lambda x: x > 2, [lambda x: x > 2]):
            self.assertEqual(list(kt._space(xy, r)),
                             [{"x": 3, "y": 1}, {"x": 3, "y": 2}, {"x": 4, "y": 1},
                              {"x": 4, "y": 2}])
        with self.assertRaises(ValueError):
            list(kt._space(tp, [3]))
        threads = {"block_size_x": [512, 1024, 2048], "block_size_y": [1, 2]}
        self.assertEqual(list(kt._space(threads, None)),
                         [{"block_size_x": 512, "block_size_y": 1},
                          {"block_size_x": 512, "block_size_y": 2},
                          {"block_size_x": 1024, "block_size_y": 1}])
        self.assertEqual(len(list(kt._space({"bx": [512, 2048]}, None))), 2)

    def test_outputs_read_back(self):
        """The arguments read back for a check, as Kernel Tuner syncs them:
        the arrays answer= has an entry for; with verify= and no answer,
        every array; a scalar never."""
        args = [np.zeros(4, np.float32), np.int32(4), np.zeros(4, np.float32)]
        o = dict(arguments=args, answer=None, verify=None)
        self.assertEqual(kt._output_indices(o), [])
        self.assertEqual(kt._output_indices(dict(o, verify=lambda a, b, atol: True)), [0, 2])
        self.assertEqual(kt._output_indices(dict(o, answer=[None, 4, args[2]])), [2])
        self.assertEqual(kt._output_indices(dict(o, answer=[None, 4, args[2]],
                                                 verify=lambda a, b, atol: True)), [2])

    def test_verify_without_atol(self):
        seen = []
        o = tune_options(verify=lambda answer, result: seen.append((answer, result)) or True,
                         arguments=self.args, answer=[None, self.a, None, None])
        self.assertTrue(check(o, [1], [None, self.a, None, None]))
        self.assertEqual(len(seen), 1)
        o = tune_options(verify=lambda answer, result, atol=None: seen.append(atol) or True,
                         arguments=self.args, atol=0.5)
        self.assertTrue(check(o, [], [None] * 4))
        self.assertEqual(seen[-1], 0.5)

    def test_answer_compared_as_kernel_tuner(self):
        """answer= is compared as Kernel Tuner compares it,
        np.allclose(expected, output, atol=atol), the answer's NaNs equal to
        NaNs (with its warning), whichever path the comparison takes."""
        rng = np.random.default_rng(7)
        e32 = rng.standard_normal(4096).astype(np.float32)
        e64 = np.array([1e6, 2.0, -3.0])
        cases = [  # (expected, output, atol)
            (e32, e32.copy(), 1e-6),
            (e32, e32 + np.float32(1e-4), 1e-3),       # within atol
            (e32, e32 + np.float32(1e-2), 1e-3),       # beyond it
            (e32, np.where(np.arange(4096) == 9, np.float32(np.nan), e32), 1e-3),
            (e32, np.where(np.arange(4096) == 9, np.float32(np.inf), e32), 1e-3),
            (np.where(np.arange(4096) == 5, np.float32(np.inf), e32),
             np.where(np.arange(4096) == 5, np.float32(np.inf), e32), 1e-6),
            (e32.astype(np.float64), e32, 1e-6),     # another dtype: np.allclose alone
            (np.arange(10), np.arange(10), 0),        # integers
            # 1e-5 of the output, not of the answer: Kernel Tuner's order
            (e64, e64 + np.array([10.0000005, 0, 0]), 0.0),
            (e64, e64 + np.array([10.1, 0, 0]), 0.0),
        ]
        for expected, output, atol in cases:
            o = tune_options(arguments=[output, self.n], answer=[expected, None], atol=atol)
            want = np.allclose(expected, output, atol=atol)
            self.assertEqual(check(o, [0], [output, None]), want, (expected[:3], output[:3], atol))
        self.assertTrue(check(tune_options(arguments=[e64, self.n], answer=[e64, None], atol=0.0),
                              [0], [e64 + np.array([10.0000005, 0, 0]), None]))
        nan = np.where(np.arange(4096) == 3, np.float32(np.nan), e32)
        o = tune_options(arguments=[nan, self.n], answer=[nan, None])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            self.assertTrue(check(o, [0], [nan.copy(), None]))
            self.assertFalse(check(o, [0], [e32, None]))
        self.assertTrue(any("Answer contains 1 NaNs" in str(x.message) for x in w))
        self.assertEqual(tune_options(objective="GFLOP/s")["objective_higher_is_better"], True)
        self.assertEqual(tune_options(objective=["GB/s"])["objective"], "GB/s")


class KernelTunerCache(unittest.TestCase):
    """The cache file in Kernel Tuner 1.5.0's format, with its checks."""

    def options(self, **kw):
        o = dict(kernel_name="scale", problem_size=(1024, 2), objective="time",
                 tune_params={"block_size_x": [32, 64], "tile": [1, 2]})
        o.update(kw)
        return o

    def test_files_that_are_no_cache(self):
        """A file that is not a Kernel Tuner cache (not UTF-8 JSON, a field
        missing or of another type, an entry that is no object) is
        refused with a ValueError naming the file and what is wrong, and
        left as it was."""
        head = ('{"device_name": "NVIDIA H100", "kernel_name": "scale", "problem_size": [1024, 2], '
                '"tune_params_keys": ["block_size_x", "tile"], "cache": {')
        cases = [(b"\xff\xfe{", "not a Kernel Tuner cache file ("),
                 (head.replace('"kernel_name": "scale", ', "").encode() + b"}}",
                  "kernel_name is not a JSON str"),
                 (head.encode() + b'"32,1": [0.5]}}', "entry 32,1 is not a JSON object"),
                 (head.replace('"cache": {', '"cache": 3').encode() + b"}",
                  "cache is not a JSON dict")]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "scale.json")
            for text, why in cases:
                with open(path, "wb") as f:
                    f.write(text)
                with self.assertRaises(ValueError) as cm:
                    kt._Cache(path, self.options(), "NVIDIA H100")
                self.assertIn("cache %s: " % path, str(cm.exception))
                self.assertIn(why, str(cm.exception))
                with open(path, "rb") as f:
                    self.assertEqual(f.read(), text)

    def test_format_and_resume(self):
        with tempfile.TemporaryDirectory() as d:
            c = kt._Cache(os.path.join(d, "scale"), self.options(), "NVIDIA H100")
            self.assertEqual(c.path, os.path.join(d, "scale.json"))  # .json added
            with open(c.path) as f:
                head = f.read()
            self.assertTrue(head.endswith('"cache": {'), head)  # open, as written
            r1 = {"block_size_x": 32, "tile": 1, "time": np.float32(0.5), "times": [0.5]}
            c.put({"block_size_x": 32, "tile": 1}, r1)
            c.put({"block_size_x": 64, "tile": 2},
                  {"block_size_x": 64, "tile": 2, "__error__": kt.CompilationFailedConfig()})
            with open(c.path) as f:
                lines = f.read().split("\n")
            self.assertEqual(lines[-2], '"32,1": {"block_size_x": 32, "tile": 1, "time": 0.5, '
                             '"times": [0.5]},')
            self.assertEqual(lines[-1], '"64,2": {"block_size_x": 64, "tile": 2, "__error__": '
                             '"CompilationFailedConfig"},')
            # an interrupted run's open file is read, and appended to
            again = kt._Cache(pathlib.Path(d) / "scale.json", self.options(), "NVIDIA H100")
            self.assertEqual(again.get({"block_size_x": 32, "tile": 1})["time"], 0.5)
            failed = again.get({"block_size_x": 64, "tile": 2})["__error__"]
            self.assertIsInstance(failed, kt.CompilationFailedConfig)  # as Kernel Tuner reads it
            self.assertEqual((str(failed), repr(failed)), ("CompilationFailedConfig",) * 2)
            self.assertEqual(pickle.loads(pickle.dumps(failed)), failed)
            again.entries["1,1"] = {"time": "RuntimeFailedConfig"}  # an older file's form
            self.assertIsInstance(again.get({"block_size_x": 1, "tile": 1})["__error__"],
                                  kt.RuntimeFailedConfig)
            self.assertIsNone(again.get({"block_size_x": 32, "tile": 2}))
            again.put({"block_size_x": 32, "tile": 2}, {"time": 1.0})
            again.close()
            with open(c.path) as f:
                data = json.load(f)  # closed: JSON
            self.assertEqual(data["device_name"], "NVIDIA H100")
            self.assertEqual(data["problem_size"], [1024, 2])
            self.assertEqual(data["tune_params_keys"], ["block_size_x", "tile"])
            self.assertEqual(data["objective"], ["time"])
            self.assertEqual(list(data["cache"]), ["32,1", "64,2", "32,2"])
            # a closed file is opened again for appending
            third = kt._Cache(c.path, self.options(), "NVIDIA H100")
            self.assertEqual(len(third.entries), 3)
            with open(c.path) as f:
                self.assertTrue(f.read().endswith("},"))
            third.close()
            with open(c.path) as f:
                self.assertEqual(json.load(f), data)

    def test_closed_forms(self):
        """A closed file is opened for appending with its last two braces
        taken off, whichever way it was written: Kernel Tuner's "}\\n}", the
        compact "}}}" of json.dump (an earlier kjit), an empty cache."""
        o = self.options()
        head = {"device_name": "NVIDIA H100", "kernel_name": "scale",
                "problem_size": [1024, 2], "tune_params_keys": ["block_size_x", "tile"],
                "tune_params": o["tune_params"], "objective": ["time"]}
        r = {"block_size_x": 32, "tile": 1, "time": 0.5}
        with tempfile.TemporaryDirectory() as d:
            for name, cache, text in (
                    ("compact", {"32,1": r}, None),
                    ("indented", {"32,1": r}, "indent"),
                    ("empty", {}, "indent")):
                path = os.path.join(d, name + ".json")
                with open(path, "w") as f:
                    data = dict(head, cache=cache)
                    f.write(json.dumps(data, indent="") if text else json.dumps(data))
                c = kt._Cache(path, o, "NVIDIA H100")
                self.assertEqual(len(c.entries), len(cache), name)
                c.put({"block_size_x": 64, "tile": 2}, {"time": 1.5})
                c.close()
                with open(path) as f:
                    got = json.load(f)
                self.assertEqual(list(got["cache"]), list(cache) + ["64,2"], name)
                if cache:
                    self.assertEqual(got["cache"]["32,1"], r, name)

    def test_measured_in_order(self):
        """What is compiled ahead is what evaluate() measures, in order: a
        repeated configuration is measured once when the cache keeps it."""
        p32, p64 = {"block_size_x": 32, "tile": 1}, {"block_size_x": 64, "tile": 1}
        with tempfile.TemporaryDirectory() as d:
            c = kt._Cache(os.path.join(d, "c.json"), self.options(), "NVIDIA H100")
            c.put(p64, {"time": 1.0})
            self.assertEqual(c.misses([p32, dict(p32), p64, {"block_size_x": 32, "tile": 2}]),
                             [p32, {"block_size_x": 32, "tile": 2}])
            c.close()
        nothing = kt._Cache(None, self.options(), "NVIDIA H100")
        self.assertEqual(nothing.misses([p32, p32, p64]), [p32, p32, p64])

    def test_mismatches(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "c.json")
            kt._Cache(path, self.options(), "NVIDIA H100").close()
            cases = [
                ((self.options(), "NVIDIA A100"), "different device (cache: NVIDIA H100, "
                 "actual: NVIDIA A100)"),
                ((self.options(kernel_name="other"), "NVIDIA H100"), "different kernel"),
                ((self.options(problem_size=(1024, 4)), "NVIDIA H100"),
                 "different problem_size, cache: [1024, 2], requested: (1024, 4)"),
                ((self.options(tune_params={"tile": [1, 2], "block_size_x": [32, 64]}),
                  "NVIDIA H100"), "the same in another order"),
                ((self.options(tune_params={"block_size_x": [32]}), "NVIDIA H100"),
                 "its tunable parameters are ['block_size_x', 'tile']"),
            ]
            for (o, device), want in cases:
                with self.assertRaises(ValueError) as cm:
                    kt._Cache(path, o, device)
                self.assertIn(want, str(cm.exception))
            # a problem size given by a function is not compared
            kt._Cache(path, self.options(problem_size=lambda p: (1, 1)), "NVIDIA H100").close()


class Compile(unittest.TestCase):
    def test_engine_paths(self):
        """db_path as str or os.PathLike, as Spec and kernel(path=) take it."""
        with tempfile.TemporaryDirectory() as d:
            p = pathlib.Path(d) / "k.db"
            self.assertEqual(kjit.Engine(db_path=p).db_path, str(p))
            self.assertEqual(kjit.Engine(db_path=str(p)).db_path, str(p))
            with self.assertRaises(TypeError) as cm:
                kjit.Engine(db_path=b"/x.db")
            self.assertIn("Engine(db_path)", str(cm.exception))
            with self.assertRaises(ValueError) as cm:
                kjit.Engine(db_path=os.path.join(d, "a\0b.db"))
            self.assertIn("NUL", str(cm.exception))
            self.assertFalse([n for n in os.listdir(d) if n.startswith("a")])  # nor "a" made

    def test_engine_without_the_driver(self):
        """gpu=False compiles and caches only, never touching the driver (a
        GPU there or not), as kjit-tune's compile processes open theirs;
        it needs an arch."""
        with tempfile.TemporaryDirectory() as d:
            e = kjit.Engine(db_path=os.path.join(d, "k.db"), arch="sm_90", gpu=False)
            self.assertFalse(e.has_gpu)
            self.assertIn("KJIT_ENGINE_NO_GPU", e.gpu_reason)
            k = kjit.kernel(SCALE.replace("a * x[i]", "a * x[i] - 1.0f"), "scale", engine=e)
            self.assertGreater(k.compile()["binary_size"], 0)
            self.assertEqual(e.stats()["compiles"], 1)
            with self.assertRaisesRegex(kjit.NoGPUError, "gpu_sensors: the engine has no GPU"):
                e.gpu_sensors()
            env = {n: v for n, v in os.environ.items() if n != "KJIT_ARCH"}
            r = subprocess.run([sys.executable, "-c", "import kjit; kjit.Engine(db_path=%r, "
                                "gpu=False)" % os.path.join(d, "k.db")],
                               env=env, capture_output=True, text=True, timeout=60)
            self.assertNotEqual(r.returncode, 0)
            self.assertIn("kjit.ArgumentError", r.stderr)
            self.assertIn("arch", r.stderr.splitlines()[-1])

    def test_compile_and_store_shared(self):
        src = SCALE.replace("a * x[i]", "a * x[i] + 1.0f")  # a fresh binary key
        k = kjit.kernel(src, "scale", params={"BLOCK": 128})
        info = k.compile()
        self.assertEqual(len(info["key"]), 32)
        self.assertIn("-DBLOCK=128", info["options"])
        self.assertGreater(info["binary_size"], 0)
        # another engine (as another process would) finds it in the store
        e2 = kjit.Engine()
        k2 = kjit.kernel(src, "scale", params={"BLOCK": 128}, engine=e2)
        self.assertEqual(k2.compile()["key"], info["key"])
        self.assertEqual(e2.stats()["disk_hits"], 1)
        self.assertEqual(e2.stats()["compiles"], 0)

    def test_compile_processes_fill_the_store(self):
        """kjit.kernel_tuner's compile processes: what they compile is loaded
        from the store by the tuning process; a configuration that fails to
        compile comes back with its CompileError, which the tuning process
        reports without compiling it again."""
        src = SCALE.replace("a * x[i]", "a * x[i] * SCALE_BY EXTRA")
        o = dict(kernel_name="scale", kernel_source=src, problem_size=1000,
                 block_size_names=kt._block_names(None), grid_div_x=None, grid_div_y=None,
                 grid_div_z=None,
                 defines=None, compiler_options=["-DSCALE_BY=3.0f"], cmem_args=None,
                 smem_args=None)
        o["flags"], o["flag_dirs"], o["flag_archs"] = kt._compiler_options(o["compiler_options"])
        configs = [{"block_size_x": b, "EXTRA": "* 1.0f"} for b in (32, 64, 128)]
        configs.append({"block_size_x": 32, "EXTRA": "+"})  # a syntax error
        e = kjit.Engine()
        workers = kt._CompileWorkers(o, e, 2)
        try:
            self.assertTrue(all(workers.add(i, p) for i, p in enumerate(configs)))
            self.assertEqual(len(workers.procs), 2)
            done = [workers.wait(i) for i in range(len(configs))]
        finally:
            workers.close()
        self.assertTrue(all(ms > 0 for ms, _ in done))
        self.assertEqual([err is None for _, err in done], [True, True, True, False])
        for p, worker in zip(configs[:3], done):
            self.assertIsNone(kt._build(o, p, e, worker)[3])
        self.assertEqual((e.stats()["compiles"], e.stats()["disk_hits"]), (0, 3))
        err = kt._build(o, configs[3], e, done[3])[3]
        self.assertIsInstance(err, kjit.CompileError)
        self.assertEqual(err.status, "KJIT_ERR_COMPILE")
        self.assertIn("EXTRA", str(err))  # NVRTC's log, as the worker met it
        self.assertEqual(e.stats()["compiles"], 0)
        with self.assertRaises(kjit.CompileError) as direct:
            kt._make_kernel(o, configs[3], e)[0].compile()
        self.assertEqual(str(direct.exception).split("\n")[-1], str(err).split("\n")[-1])
        for engine, n in ((kjit.Engine(":memory:"), 2), (e, 0)):
            idle = kt._CompileWorkers(o, engine, n)  # no process: all the tuner's
            self.assertFalse(idle.add(0, configs[0]))
            self.assertEqual((idle.procs, idle.wait(0)), ([], (0.0, None)))
            idle.close()
        # closed while configurations wait: nobody waits on them for ever
        workers = kt._CompileWorkers(o, e, 1)
        fresh = [dict(p, EXTRA="* %d.0f" % n) for n, p in enumerate(configs[:3] * 3)]
        self.assertTrue(all(workers.add(i, p) for i, p in enumerate(fresh)))
        workers.close()
        self.assertEqual([workers.wait(i)[1] for i in range(len(fresh))], [None] * len(fresh))
        self.assertFalse(workers.add(len(fresh), configs[0]))

    def test_threads_fill_the_store(self):
        """kjit.kernel_tuner's threads compile into the store through an
        engine of their own that never touches the driver; the measuring
        engine then finds every binary there (a disk hit, no compile), and a
        compile error comes back with its log. With a store in memory the
        measuring engine compiles."""
        src = SCALE.replace("a * x[i]", "a * x[i] * 2.0f EXTRA")
        o = dict(kernel_name="scale", kernel_source=src, problem_size=1000,
                 block_size_names=kt._block_names(None), grid_div_x=None, grid_div_y=None,
                 grid_div_z=None, defines=None, compiler_options=None, cmem_args=None,
                 smem_args=None)
        o["flags"], o["flag_dirs"], o["flag_archs"] = kt._compiler_options(None)
        configs = [{"block_size_x": b, "EXTRA": "* 1.0f"} for b in (32, 64, 128)]
        configs.append({"block_size_x": 32, "EXTRA": "+"})  # a syntax error
        e = kjit.Engine()
        ahead = kt._Ahead(o, e, 0)
        try:
            done = [f.result() for f in ahead.batch(configs)]
            self.assertEqual([p for p, _ in done], configs)
            self.assertFalse(ahead.compiler.has_gpu)
            self.assertEqual(ahead.compiler.stats()["compiles"], 4)
        finally:
            ahead.close()
        built = [kt._build(o, p, e, worker) for p, worker in done]
        self.assertEqual([b[3] is None for b in built], [True, True, True, False])
        self.assertEqual((e.stats()["compiles"], e.stats()["disk_hits"]), (0, 3))
        self.assertIsInstance(built[3][3], kjit.CompileError)
        self.assertIn("EXTRA", str(built[3][3]))
        self.assertTrue(all(b[2] > 0 for b in built))  # the thread's compile counted
        memory = kjit.Engine(":memory:")
        ahead = kt._Ahead(o, memory, 0)
        try:
            self.assertIsNone(ahead.compiler)
            self.assertEqual(ahead.batch(configs[:1])[0].result(), (configs[0], (0.0, None)))
        finally:
            ahead.close()
        self.assertIsNone(kt._build(o, configs[0], memory)[3])
        self.assertEqual(memory.stats()["compiles"], 1)

    def test_compile_error_has_the_log(self):
        with self.assertRaises(kjit.CompileError) as cm:
            kjit.kernel('extern "C" __global__ void f() { undefined_thing(); }', "f").compile()
        self.assertEqual(cm.exception.status, "KJIT_ERR_COMPILE")
        self.assertIn("undefined_thing", str(cm.exception))

    def test_launch_without_gpu(self):
        if kjit.default_engine().has_gpu:
            self.skipTest("a GPU is here")
        k = kjit.kernel(SCALE, "scale")
        with self.assertRaises(kjit.NoGPUError):
            k(1, 32, None, None, 2.0, 0)
        self.assertIsNone(kjit.default_engine().device)


class Conversions(unittest.TestCase):
    def setUp(self):
        self.k = kjit.kernel(SCALE, "scale")

    def refused(self, *args, **kw):
        with self.assertRaises(kjit.ArgumentError) as cm:
            self.k(1, 32, *args, **kw)
        self.assertEqual(cm.exception.status, "KJIT_ERR_INVALID_ARG")
        return str(cm.exception)

    def test_refusals(self):
        a = np.zeros(4, np.float32)
        self.assertIn("host memory", self.refused(a, None, 2.0, 4))
        self.assertIn("a float for an integer", self.refused(None, None, 2.0, 4.5))
        self.assertIn("does not fit", self.refused(None, None, 2.0, 1 << 40))
        self.assertIn("does not fit", self.refused(None, None, 2.0, np.int64(-(1 << 33))))
        self.assertIn("an array for a parameter", self.refused(None, None, FakeCAI(a), 4))
        self.assertIn("neither", self.refused(None, object(), 2.0, 4))
        self.assertIn("strided", self.refused(FakeCAI(a[::2]), None, 2.0, 4))
        self.assertIn("at most", self.refused(*([None] * 70)))
        with self.assertRaises(TypeError):
            self.k(1, 32, None, None, 2.0, 4, stream=object())
        with self.assertRaises(ValueError):
            self.k((1, 2, 3, 4), 32, None, None, 2.0, 4)

    def test_unknown_types_need_numpy_scalars(self):
        k = kjit.kernel('extern "C" __global__ void g(T x) {}'.replace("T x", "my_t x"), "g")
        with self.assertRaises(kjit.ArgumentError) as cm:
            k(1, 1, 3)
        self.assertIn("argtypes", str(cm.exception))

    def test_pointers_are_the_arrays_own(self):
        a = np.arange(16, dtype=np.float32)
        d = FakeDLPack(a)
        (p1, p2, p3, p4), stream = kjit.pointers(d, FakeCAI(a, stream=7), FakeDLPack(a[3:]),
                                                 None)
        self.assertEqual((p1, p2, p3, p4), (a.ctypes.data, a.ctypes.data,
                                            a.ctypes.data + 12, 0))
        self.assertEqual(stream, 7)  # the CUDA Array Interface's stream
        self.assertEqual(d.stream, 7)  # and __dlpack__ was asked to order on it
        _, stream = kjit.pointers(FakeCAI(a), stream=5)
        self.assertEqual(stream, 5)

        class S:
            def __cuda_stream__(self):
                return (0, 1234)
        self.assertEqual(kjit.pointers(stream=S())[1], 1234)
        self.assertEqual(kjit.pointers(FakeDLPack(a))[1], 0)
        self.assertEqual(FakeDLPack(a).__class__.__name__, "FakeDLPack")

    def test_torch_path(self):
        """The PyTorch path reads a tensor through data_ptr(), get_device() and
        is_contiguous(): a stand-in of module torch with those methods."""
        class Tensor:
            __module__ = "torch"

            def __init__(self, ptr, device=0, contiguous=True):
                self.p, self.d, self.c = ptr, device, contiguous

            def data_ptr(self):
                return self.p

            def get_device(self):
                return self.d

            def is_contiguous(self):
                return self.c
        (p,), s = kjit.pointers(Tensor(0x7f0000001000), stream=9)
        self.assertEqual((p, s), (0x7f0000001000, 9))
        for t, want in ((Tensor(1, device=-1), "on the CPU"), (Tensor(1, device=1), "cuda:1"),
                        (Tensor(1, contiguous=False), "not contiguous")):
            with self.assertRaises(kjit.ArgumentError) as cm:
                kjit.pointers(t, stream=9)
            self.assertIn(want, str(cm.exception))

    def test_cupy_path(self):
        """CuPy's ndarray is read through data.ptr, data.device_id, _c_contiguous
        and size, and CuPy's current stream, without building its CUDA Array
        Interface: a stand-in of module cupy with those attributes."""
        import types
        cuda = types.ModuleType("cupy.cuda")
        cuda.stream = types.SimpleNamespace(ptr=0)
        cuda.get_current_stream = lambda: cuda.stream
        cupy = types.ModuleType("cupy")
        cupy.cuda = cuda

        class ndarray:
            __module__ = "cupy"
            reads = 0

            def __init__(self, a, device=0):
                self.a, self.size, self._c_contiguous = a, a.size, a.flags.c_contiguous
                self.data = types.SimpleNamespace(ptr=a.ctypes.data, device_id=device)

            @property
            def __cuda_array_interface__(self):
                ndarray.reads += 1
                return dict(self.a.__array_interface__, version=3, stream=1)
        saved = {m: sys.modules.get(m) for m in ("cupy", "cupy.cuda")}
        sys.modules.update({"cupy": cupy, "cupy.cuda": cuda})
        try:
            a = np.arange(16, dtype=np.float32)
            x, y = ndarray(a), ndarray(a[4:])
            kjit.pointers(x)  # the type is read once
            reads = ndarray.reads
            self.assertEqual(kjit.pointers(x, y), ((a.ctypes.data, a.ctypes.data + 16), 1))
            cuda.stream = types.SimpleNamespace(ptr=77)
            self.assertEqual(kjit.pointers(x)[1], 77)  # CuPy's current stream
            self.assertEqual(kjit.pointers(x, stream=5)[1], 5)
            self.assertEqual(kjit.pointers(ndarray(a[:0]))[0], (0,))
            self.assertEqual(ndarray.reads, reads, "the CUDA Array Interface was built")
            with self.assertRaises(kjit.ArgumentError) as cm:
                kjit.pointers(ndarray(a, device=1))
            self.assertIn("device 1", str(cm.exception))
            with self.assertRaises(kjit.ArgumentError) as cm:
                kjit.pointers(ndarray(a[::2]))
            self.assertIn("strided", str(cm.exception))
        finally:
            for m, v in saved.items():
                if v is None:
                    sys.modules.pop(m, None)
                else:
                    sys.modules[m] = v

    def test_cuda_core_buffer_path(self):
        """cuda.core's Buffer: its address is its handle, where its memory is
        from the attributes it keeps (as its __dlpack_device__ classifies
        them); no capsule and no DLPack device tuple is made."""
        class Buffer:
            __module__ = "cuda.core._memory._buffer"
            is_device_accessible, is_host_accessible = True, False

            def __init__(self, handle, device_id=0):
                self.handle, self.device_id = handle, device_id

            def __dlpack_device__(self):
                raise AssertionError("a DLPack device was asked for")

            def __dlpack__(self, stream=None):
                raise AssertionError("a capsule was made")

        class Managed(Buffer):  # managed or pinned: both sides reach it
            __module__ = "cuda.core._memory._managed_buffer"
            is_host_accessible = True

        class Host(Buffer):  # host memory the driver does not know
            __module__ = "cuda.core._memory._buffer"
            is_device_accessible, is_host_accessible = False, True

        self.assertEqual(kjit.pointers(Buffer(0x7f0000002000), Managed(0x7f0000003000, 1),
                                       stream=3),
                         ((0x7f0000002000, 0x7f0000003000), 3))
        with self.assertRaises(kjit.ArgumentError) as cm:
            kjit.pointers(Buffer(0x7f0000002000, device_id=2))
        self.assertIn("device 2", str(cm.exception))
        with self.assertRaises(kjit.ArgumentError) as cm:
            kjit.pointers(Host(0x7f0000004000, -1))
        self.assertIn("a buffer in host memory", str(cm.exception))

    def test_dlpack_refusals(self):
        class Host(FakeDLPack):
            def __dlpack_device__(self):
                return (1, 0)

        class Other(FakeDLPack):
            def __dlpack_device__(self):
                return (2, 3)
        a = np.zeros((4, 4), np.float32)
        for obj, want in ((Host(a), "host memory"), (Other(a), "device 3"),
                          (FakeDLPack(a[:, :2]), "strided"), (FakeDLPack(a.T), "strided")):
            with self.assertRaises(kjit.ArgumentError) as cm:
                kjit.pointers(obj)
            self.assertIn(want, str(cm.exception))
        # size-1 dimensions have free strides; a compact view passes
        kjit.pointers(FakeDLPack(a[1:3]), FakeDLPack(a[:, 1:2].reshape(4, 1)[:1]))

    def test_parse_params(self):
        src = r'''
        template <typename T, int N> __global__ void
        __launch_bounds__(256) tmpl(T *out, const T *__restrict__ in, size_t n,
                                    unsigned int flags, double scale = 1.0) {}
        __global__ void arr(float a[], const int k) {}
        '''
        types, names = _types.parse_params(src, "tmpl<float, 4>")
        self.assertEqual(names, ["out", "in", "n", "flags", "scale"])
        kinds = [_types.kind_of(t) for t in types]
        K = kjit._kjit.KINDS
        self.assertEqual(kinds, [K["ptr"], K["ptr"], K["uint64"], K["uint32"], K["float64"]])
        types, names = _types.parse_params(src, "arr")
        self.assertEqual([_types.kind_of(t) for t in types], [K["ptr"], K["int32"]])
        self.assertIsNone(_types.parse_params(src, "missing"))
        with self.assertRaises(kjit.ArgumentError):
            _types.signature(src, "arr", ["float *", "complex"])
        kinds, _ = _types.signature(src, "arr", [np.dtype(np.float32), "int32"])
        self.assertEqual(list(kinds), [K["float32"], K["int32"]])


class Tunable(unittest.TestCase):
    def saxpy(self):
        with open(os.path.join(SRC, "examples", "saxpy", "saxpy.cu"), encoding="utf-8") as f:
            text = f.read()
        return kjit.tunable(text, "saxpy",
                            params={"BLOCK_SIZE": [64, 128, 256, 512, 1024],
                                    "ITEMS_PER_THREAD": list(range(1, 9))},
                            block=("BLOCK_SIZE",),
                            grid=("(n + BLOCK_SIZE * ITEMS_PER_THREAD - 1) / "
                                  "(BLOCK_SIZE * ITEMS_PER_THREAD)",),
                            problem=("n",), defaults={"BLOCK_SIZE": 256})

    def test_same_signature_as_the_spec(self):
        spec = kjit.from_spec(os.path.join(SRC, "examples", "saxpy", "saxpy.json"))
        mine = self.saxpy()
        self.assertEqual(spec.signature, mine.signature)
        self.assertEqual(spec.problem_names, ("n",))
        x = mine.explain(1 << 20)
        self.assertEqual(x["rule"], "default")
        self.assertEqual(json.loads(x["config"]), {"BLOCK_SIZE": 256, "ITEMS_PER_THREAD": 1})

    def test_from_spec_argtypes(self):
        """argtypes apply to a spec of kjit's format (its kernel.entry) and are
        checked; a Kernel is made by kjit's functions, not constructed."""
        path = os.path.join(SRC, "examples", "saxpy", "saxpy.json")
        with self.assertRaises(kjit.ArgumentError):
            kjit.from_spec(path, argtypes=["bogus"])
        k = kjit.from_spec(path, argtypes=["int64", "float", np.float32, "float*"])
        with self.assertRaises(kjit.ArgumentError) as cm:  # four, as argtypes says
            k(1 << 20, 1 << 20, 2.0, None)
        self.assertNotIn("pass argtypes", str(cm.exception))
        with self.assertRaises(TypeError):
            kjit.Kernel()

    def test_tunable_refusals(self):
        src = "__global__ void k(float *x) {}"
        for kw, want in ((dict(params={"B": []}), "no values"),
                         (dict(params=[("B", [1])]), "params is"),
                         (dict(params={"B": [1]}, defaults={"C": 2}), "defaults names"),
                         (dict(params={"B": [1]}, block=("B", "B", "B", "B")), "at most three")):
            with self.assertRaises((TypeError, ValueError)) as cm:
                kjit.tunable(src, "k", **kw)
            self.assertIn(want, str(cm.exception))

    def test_malformed_private_calls(self):
        e = kjit.default_engine()
        for args in (("not a tuple", None, None, None), ((1, 2), None, None, None)):
            with self.assertRaises(TypeError):
                kjit.Kernel._tunable(e, *args)
        with self.assertRaises(TypeError):
            kjit.Kernel._plain(e, "f", "src", None, [("A",)], (), None, None, None)

    def test_bad_descriptions(self):
        with self.assertRaises(ValueError):
            kjit.tunable(SCALE, "scale", params={"B": [1, 2]}, block=("C",))
        with self.assertRaises(kjit.ArgumentError) as cm:
            kjit.tunable(SCALE, "scale", params={"B": [32]}, block=("B",), grid=("n / / B",))
        self.assertIn("grid", str(cm.exception))
        k = self.saxpy()
        with self.assertRaises(ValueError):
            k.explain((1, 2))


class Specs(unittest.TestCase):
    """kjit.Spec: a spec read by the C library, its spaces against Python's own
    reading of the same T1 file."""

    T1 = os.path.join(SRC, "tests", "t1")

    def python_space(self, path):
        """Every valid configuration, as Python itself evaluates the T1 file
        (the Values expressions, the product in order, each condition)."""
        import itertools
        with open(path, encoding="utf-8") as f:
            cs = json.load(f)["ConfigurationSpace"]
        names, lists = [], []
        for p in cs["TuningParameters"]:
            values = p["Values"]
            values = eval(values) if isinstance(values, str) else values
            names.append(p["Name"])
            lists.append([int(v) if p["Type"] == "bool" else v for v in values])
        conds = [c if isinstance(c, str) else c["Expression"] for c in cs.get("Conditions", [])]
        valid = [dict(zip(names, c)) for c in itertools.product(*lists)
                 if all(eval(e, {"min": min, "max": max, "abs": abs}, dict(zip(names, c)))
                        for e in conds)]
        return dict(zip(names, lists)), valid

    def test_t1_space_as_python_reads_it(self):
        path = os.path.join(self.T1, "values.json")
        params, valid = self.python_space(path)
        spec = kjit.Spec(path)
        self.assertEqual(spec.params, params)
        self.assertEqual([type(v) for v in spec.params["d"]], [float] * 4)
        self.assertEqual(list(spec.params), list(params))  # the spec's order
        c = spec.count()
        self.assertTrue(c.exact)
        self.assertEqual((c.valid, c.product, c.rel_error), (len(valid), 11 * 6 * 4 * 4 * 2 * 2 * 3, 0))
        space = spec.space()
        self.assertEqual(len(space), len(valid))
        self.assertEqual(list(space), valid)
        self.assertFalse(space.sampled)
        self.assertEqual(space[-1], valid[-1])
        for i in (0, 17, len(valid) - 1):
            self.assertEqual(space.index(valid[i]), i)
        with self.assertRaises(IndexError):
            space[len(valid)]
        ruled_out = dict(valid[0], a=20, b=32)  # a * b <= 64
        with self.assertRaisesRegex(ValueError, "not in the space"):
            space.index(ruled_out)
        with self.assertRaisesRegex(ValueError, "not one of its values"):
            space.index(dict(valid[0], a=3))
        with self.assertRaises(KeyError):
            space.index({"a": 1})
        self.assertIs(space.spec, spec)
        self.assertIn("values.json", repr(space))

    def test_kjit_spec_problems_limits_defaults(self):
        import pathlib
        path = pathlib.Path(SRC) / "examples" / "saxpy" / "saxpy.json"
        spec = kjit.Spec(path)
        self.assertEqual(spec.signature, kjit.from_spec(str(path)).signature)
        self.assertRegex(spec.signature, "^[0-9a-f]{32}$")
        self.assertEqual(spec.problems, [{"n": 67108864}])
        self.assertEqual(spec.defaults, {"BLOCK_SIZE": 256, "ITEMS_PER_THREAD": 1})
        self.assertEqual(len(spec.space()), 40)
        small = spec.space(0, max_threads=256)
        self.assertEqual(len(small), 3 * 8)
        self.assertEqual({c["BLOCK_SIZE"] for c in small}, {64, 128, 256})
        self.assertEqual(small.problem, {"n": 67108864})
        with self.assertRaises(kjit.ArgumentError):
            spec.space(1)
        with self.assertRaises(kjit.ArgumentError):
            spec.count(max_threads=-1)

    def test_too_large_sampled(self):
        spec = kjit.Spec(os.path.join(self.T1, "huge_space.json"))
        self.assertGreater(spec.count().product, 1e10)
        with self.assertRaisesRegex(kjit.ArgumentError, "too large to hold"):
            spec.space()
        s = spec.space(sample=200, seed=5)
        self.assertTrue(s.sampled)
        self.assertTrue(0 < len(s) <= 200)
        self.assertEqual(list(spec.space(sample=200, seed=5)), list(s))
        self.assertEqual(s.index(s[len(s) - 1]), len(s) - 1)

    def test_bad_specs(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            with open(bad, "w") as f:
                f.write('{"parameters": [')
            with self.assertRaisesRegex(kjit.ArgumentError, "bad.json"):
                kjit.Spec(bad)
            with self.assertRaises(kjit.Error) as cm:
                kjit.Spec(os.path.join(d, "missing.json"))
            self.assertEqual(cm.exception.status, "KJIT_ERR_IO")
            self.assertEqual(os.listdir(d), ["bad.json"])
        with self.assertRaises(TypeError):
            kjit.Spec(3)
        with self.assertRaises(TypeError):
            kjit.Space()


class Searches(unittest.TestCase):
    """kjit.Search: kjit's strategies asked and told from Python, the search
    kjit-tune runs (its --ask answers the same proposals)."""
    SAXPY = os.path.join(SRC, "examples", "saxpy", "saxpy.json")

    @staticmethod
    def objective(space, j):
        c = space.indices(j)
        return 1.0 + abs(c[0] - 2) + 0.5 * abs(c[1] - 1) if j % 7 != 3 else math.inf

    def drive(self, search, n):
        """n proposals, one at a time, each told its objective (repeats
        answered from what is known); the indices."""
        known, seen = {}, []
        while len(seen) < n:
            j = search.ask()
            if j is None:
                break
            self.assertNotEqual(j, kjit.SEARCH_WAIT)
            if j not in known:
                known[j] = self.objective(search.space, j)
                seen.append(j)
            search.tell(j, known[j])
        return seen

    def test_catalogue(self):
        s = kjit.strategies()
        self.assertEqual(set(s), {"exhaustive", "random", "annealing", "genetic", "surrogate",
                                  "dual_annealing", "pso", "hybrid"})
        summary, settings = s["genetic"]
        self.assertIn("genetic", summary)
        self.assertEqual(settings["popsize"], "20")
        self.assertEqual(s["hybrid"][1], {})

    def test_ask_and_tell(self):
        space = kjit.Spec(self.SAXPY).space()
        s = space.search("genetic_algorithm", settings={"popsize": 6}, budget=20, seed=3)
        self.assertEqual((s.strategy, s.ahead, s.warnings), ("genetic", False, ()))
        self.assertIs(s.space, space)
        self.assertIn("kjit.Search by genetic", repr(s))
        first = [s.ask() for _ in range(6)]
        self.assertEqual(len(set(first)), 6)
        self.assertEqual(s.ask(), kjit.SEARCH_WAIT)  # a generation waits for its results
        for j in reversed(first):
            s.tell(j, self.objective(space, j))
        self.assertGreaterEqual(s.ask(), 0)
        with self.assertRaises(kjit.ArgumentError) as cm:
            s.tell(len(space), 1.0)
        self.assertIn("configuration 40 of 40", str(cm.exception))
        with self.assertRaises(kjit.ArgumentError) as cm:
            s.tell(first[0], 1.0)  # told already
        self.assertIn("not outstanding", str(cm.exception))
        # the same seed, the same proposals; settings as a mapping or as words
        a = self.drive(space.search("pso", settings={"popsize": 4}, budget=12, seed=9), 12)
        b = self.drive(space.search("pso", settings=["popsize=4"], budget=12, seed=9), 12)
        self.assertEqual(a, b)
        self.assertEqual(len(a), 12)
        ex = self.drive(space.search("brute_force"), 100)  # every one once, shuffled
        self.assertEqual(sorted(ex), list(range(len(space))))
        self.assertNotEqual(ex, list(range(len(space))))
        self.assertEqual(self.drive(space.search("brute_force"), 100), ex)  # the same order again
        d = space.search(budget=10)  # a budget without a strategy: the default
        self.assertEqual(d.strategy, "hybrid")
        self.assertEqual(space.search().strategy, "exhaustive")
        with self.assertRaises(kjit.ArgumentError):
            kjit.Spec(self.SAXPY).space().search().tell(0, 1.0)  # nothing outstanding

    def test_refusals(self):
        space = kjit.Spec(self.SAXPY).space()
        for strategy, kw, says in (
                ("hill_climbing", {}, "unknown strategy 'hill_climbing'"),
                ("genetic", {"settings": {"popsize": 0}}, "setting 'popsize=0': strategy "
                 "genetic takes popsize (a count from 1 to 4096)"),
                ("annealing", {"settings": {"T_min": 5}}, "T_min (5) is above T"),
                ("pso", {"budget": -1}, "budget=-1")):
            with self.assertRaises(kjit.ArgumentError, msg=strategy) as cm:
                space.search(strategy, **kw)
            self.assertIn(says, str(cm.exception))
        with self.assertRaises(TypeError):
            space.search("pso", settings=["popsize=3", 4])
        with self.assertRaises(TypeError):
            space.search("pso", settings="popsize=3")
        with self.assertRaises(TypeError):
            kjit.Search()

    def test_same_as_kjit_tune(self):
        """kjit-tune --ask proposes what kjit.Search does, answered alike."""
        space = kjit.Spec(self.SAXPY).space()
        for strategy in ("hybrid", "genetic", "dual_annealing"):
            mine = self.drive(space.search(strategy, budget=15, seed=4), 15)
            p = subprocess.Popen([os.environ["KJIT_TUNE_BIN"], self.SAXPY, "--ask",
                                  "--strategy", strategy, "--budget", "15", "--seed", "4"],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            theirs = []
            for line in p.stdout:
                j = space.index(dict(zip(space.spec.params, (
                    space.spec.params[k][int(i)] for k, i in zip(space.spec.params,
                                                                 line.split())))))
                theirs.append(j)
                v = self.objective(space, j)
                p.stdin.write(("fail" if math.isinf(v) else repr(v)) + "\n")
                p.stdin.flush()
            p.stdin.close()
            self.assertEqual(p.wait(), 0)
            self.assertEqual(mine, theirs, strategy)


class Tune(unittest.TestCase):
    def test_count_through_kjit_tune(self):
        """The subprocess route, in a mode that needs no GPU: kjit-tune --count."""
        with open(os.path.join(SRC, "examples", "saxpy", "saxpy.json"), encoding="utf-8") as f:
            spec = json.load(f)
        with open(os.path.join(SRC, "examples", "saxpy", "saxpy.cu"), encoding="utf-8") as f:
            text = f.read()
        r = kjit.tune(spec, source=text, extra_args=["--count"])
        self.assertEqual(r["problems"][0]["valid"], 40)

    def test_failure_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.json")
            with open(bad, "w") as f:
                f.write('{"kernel": {}}')
            with self.assertRaises(kjit.Error) as cm:
                kjit.tune(bad)
            self.assertIn("kjit-tune failed", str(cm.exception))
        with self.assertRaises(TypeError):
            kjit.tune("x.json", budgett=3)

    def test_run_failure_is_an_error(self):
        """A run that fails once started (here: no GPU) prints its summary with
        the error; tune() raises it rather than returning it as a result."""
        if kjit.default_engine().has_gpu:
            self.skipTest("a GPU is present: the run would succeed")
        with tempfile.TemporaryDirectory() as d:
            with self.assertRaises(kjit.Error) as cm:
                kjit.tune(os.path.join(SRC, "examples", "saxpy", "saxpy.json"), budget=2,
                          db=os.path.join(d, "k.db"), quiet=True)
            self.assertIn("kjit-tune failed (exit 1)", str(cm.exception))
            self.assertIn("GPU", str(cm.exception))

    def test_missing_program(self):
        old = os.environ.get("KJIT_TUNE_BIN")
        os.environ["KJIT_TUNE_BIN"] = "/nonexistent/kjit-tune"
        try:
            with self.assertRaises(kjit.Error) as cm:
                kjit.tune("x.json")
            self.assertIn("$KJIT_TUNE_BIN=/nonexistent/kjit-tune", str(cm.exception))
            before = set(os.listdir(tempfile.gettempdir()))
            try:  # pso's search is the library's, in this process: no kjit-tune
                kt.tune_kernel("k", "__global__ void k(float *x) {}", 64,
                               [np.zeros(64, np.float32)], {"block_size_x": [32, 64]},
                               strategy="pso", quiet=True)
            except kjit.NoGPUError:
                pass  # as far as the GPU
            left = [n for n in set(os.listdir(tempfile.gettempdir())) - before
                    if n.startswith("kjit-kt-")]
            self.assertEqual(left, [])
        finally:
            if old is None:
                del os.environ["KJIT_TUNE_BIN"]
            else:
                os.environ["KJIT_TUNE_BIN"] = old


if __name__ == "__main__":
    unittest.main(verbosity=2)
