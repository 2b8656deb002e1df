"""Tuning from Python: runs the kjit-tune program on a spec.

The route is the kjit-tune program itself, run as a subprocess: the same
compile processes, GPU worker, search strategies, racing and store as the
command line, so what it measures lands in the store that kjit.tunable(),
kjit.from_spec() and the C library's kjit_launch() read. Its progress
goes to this process's stderr as it comes; its --json summary is returned
as a TuneResult. Ctrl-C (KeyboardInterrupt) stops the run cleanly: kjit-tune
finishes the configurations in flight, keeps everything measured in the store,
and the result comes back with interrupted=True.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from . import _kjit

__all__ = ["tune", "results", "TuneResult", "kjit_tune_path"]


def kjit_tune_path():
    """The kjit-tune program: $KJIT_TUNE_BIN, else the one installed with this
    package, else kjit-tune on $PATH."""
    env = os.environ.get("KJIT_TUNE_BIN")
    if env:
        if not os.access(env, os.X_OK):
            raise _kjit.Error("KJIT_ERR_IO", "$KJIT_TUNE_BIN=%s: no such program (or not "
                              "executable)" % env)
        return env
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin", "kjit-tune")
    if os.access(here, os.X_OK):
        return here
    found = shutil.which("kjit-tune")
    if not found:
        raise _kjit.Error("KJIT_ERR_IO", "kjit-tune not found: install kjit (make install), "
                          "put it on $PATH or set $KJIT_TUNE_BIN")
    return found


class TuneResult(dict):
    """kjit-tune's --json summary (a dict), with shortcuts:
    .best (the best of each problem: {"config", "median_ns", ...} or None),
    .interrupted (stopped by Ctrl-C; what was measured is kept in the store)."""

    @property
    def best(self):
        return [p.get("best") for p in self.get("problems", [])]

    @property
    def interrupted(self):
        return bool(self.get("interrupted"))


def _spec_file(spec, source, tmp):
    """A path to the spec: spec itself, or a dict written (with its source
    text, when given) into tmp."""
    if not isinstance(spec, dict):
        if source is not None:
            raise TypeError("source= goes with a spec given as a dict")
        return os.fspath(spec)
    spec = json.loads(json.dumps(spec))  # a copy we may change
    if source is not None:
        with open(os.path.join(tmp, "kernel.cu"), "w", encoding="utf-8") as f:
            f.write(source)
        kernel = spec.setdefault("kernel", {})
        kernel["source"] = "kernel.cu"
    path = os.path.join(tmp, "spec.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(spec, f, indent=1)
    return path


_OPTIONS = {"db": "--db", "strategy": "--strategy", "budget": "--budget",
            "fraction": "--fraction", "time_budget": "--time-budget", "seed": "--seed",
            "problem": "--problem", "devices": "--devices", "timeout": "--timeout",
            "objective": "--objective", "verify": "--verify", "atol": "--atol",
            "rtol": "--rtol", "jobs": "--jobs", "l2": "--l2"}


def _command(path, force, quiet, options, extra_args):
    cmd = [kjit_tune_path(), path, "--json"]
    for key, value in options.items():
        if key not in _OPTIONS:
            raise TypeError("tune() got an unexpected keyword argument %r" % key)
        if value is not None:
            cmd += [_OPTIONS[key], os.fspath(value) if key == "db" else str(value)]
    if force:
        cmd.append("--force")
    if quiet:
        cmd.append("--quiet")
    return cmd + [str(a) for a in extra_args]


def tune(spec, *, source=None, force=False, quiet=False, extra_args=(), **options):
    """Tunes a spec with kjit-tune; returns its summary as a TuneResult.

    spec: a spec file (kjit's format or Kernel Tuner's T1), or a dict of kjit's
    format; with source= (the kernel's CUDA text) the dict's kernel.source is
    that text, written beside the spec. Options, as kjit-tune's: db, strategy,
    budget, fraction, time_budget (s), seed, problem, devices, timeout,
    objective ('time', 'energy', 'edp'), verify, atol, rtol, jobs, l2;
    force=True measures again what the store has; extra_args are passed as
    they are. Raises kjit.Error with kjit-tune's message when it fails.
    """
    with tempfile.TemporaryDirectory(prefix="kjit-tune-") as tmp:
        cmd = _command(_spec_file(spec, source, tmp), force, quiet, options, extra_args)
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=None)
        try:
            out, _ = proc.communicate()
        except KeyboardInterrupt:
            # the terminal's Ctrl-C reached kjit-tune too; a notebook's did not
            if proc.poll() is None:
                proc.send_signal(signal.SIGINT)
            out, _ = proc.communicate()
        text = out.decode("utf-8", "replace").strip()
        try:
            summary = json.loads(text.splitlines()[-1]) if text else None
        except ValueError:
            summary = None
        if not isinstance(summary, dict):
            summary = None
        # a run that failed still prints its summary, with the error
        failed = summary is None or (summary.get("error") and not summary.get("interrupted"))
        if failed:
            raise _kjit.Error("KJIT_ERR_INVALID_ARG" if proc.returncode in (2, 3) else
                              "KJIT_ERR_IO",
                              "kjit-tune failed (exit %d): %s" % (
                                  proc.returncode, summary["error"] if summary else
                                  "%s (its messages are above)" % " ".join(cmd)))
        return TuneResult(summary)


def results(spec, *, db=None, device_key=None, problem=None, run=None):
    """The results stored for a spec's kernel (kjit-tune --export json),
    as a list of dicts."""
    cmd = [kjit_tune_path(), os.fspath(spec), "--export", "json"]
    for opt, value in (("--db", db), ("--device-key", device_key), ("--problem", problem),
                       ("--run", run)):
        if value is not None:
            cmd += [opt, os.fspath(value) if opt == "--db" else str(value)]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if proc.returncode != 0:
        raise _kjit.Error("KJIT_ERR_IO", proc.stderr.decode("utf-8", "replace").strip())
    return json.loads(proc.stdout.decode("utf-8"))


if __name__ == "__main__":  # python -m kjit.tuning SPEC [kjit-tune options]
    sys.exit(subprocess.call([kjit_tune_path()] + sys.argv[1:]))
