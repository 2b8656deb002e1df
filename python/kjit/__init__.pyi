from typing import Any, Callable, Dict, Iterable, Mapping, Optional, Sequence, Tuple, Union, final
import os
from .tuning import TuneResult

_Dims = Union[int, Tuple[int], Tuple[int, int], Tuple[int, int, int]]
_Problem = Union[int, Tuple[int, ...]]
_Path = Union[str, os.PathLike]
_Stream = Any  # None, an int handle, or an object with __cuda_stream__

__version__: str
_kjit: Any  # the C extension, whose public names are declared below
__all__ = ["Engine", "Kernel", "Error", "NoGPUError", "CompileError", "ArgumentError",
           "Spec", "Space", "SpaceCount", "Search", "SEARCH_WAIT", "strategies",
           "default_engine", "kernel", "tunable", "from_spec", "pointers", "version",
           "tune", "results"]

class Error(RuntimeError):
    @property
    def status(self) -> Optional[str]: ...
class NoGPUError(Error): ...
class CompileError(Error): ...
class ArgumentError(Error, TypeError): ...

@final
class Engine:
    def __new__(cls, db_path: Optional[_Path] = ..., device: int = ..., arch: Optional[str] = ...,
                tune: Optional[str] = ..., compile_threads: int = ...,
                gpu: bool = ...) -> "Engine": ...
    has_gpu: bool
    arch: str
    device_name: str
    db_path: str
    gpu_reason: str
    device: Optional[Dict[str, Any]]
    def synchronize(self) -> None: ...
    def stats(self) -> dict: ...
    def gpu_sensors(self) -> Dict[str, float]: ...
    def alloc(self, nbytes: int) -> int: ...
    def free(self, address: int) -> None: ...
    def htod(self, address: int, data: bytes) -> None: ...
    def dtoh(self, address: int, nbytes: int) -> bytes: ...

@final
class Kernel:
    signature: str
    problem_names: Tuple[str, ...]
    engine: Engine
    tunable: bool
    def __call__(self, *args: Any, stream: _Stream = ..., shared_mem: int = ...) -> None: ...
    def launch(self, *args: Any, stream: _Stream = ..., shared_mem: int = ...) -> None: ...
    def compile(self) -> dict: ...
    def explain(self, problem: _Problem) -> dict: ...
    def set_symbol(self, name: str, data: bytes) -> None: ...

@final
class SpaceCount(Tuple[float, bool, float, float, float]):
    n_fields: int
    n_sequence_fields: int
    n_unnamed_fields: int
    __match_args__ = ("valid", "exact", "product", "rel_error", "upper")
    valid: float
    exact: bool
    product: float
    rel_error: float
    upper: float

@final
class Spec:
    def __new__(cls, path: _Path) -> "Spec": ...
    path: _Path
    params: dict
    defaults: dict
    problems: list
    warnings: list
    signature: str
    def count(self, problem: int = ..., *, max_threads: int = ...,
              max_shared: int = ...) -> SpaceCount: ...
    def space(self, problem: int = ..., *, max_threads: int = ..., max_shared: int = ...,
              sample: int = ..., seed: int = ...) -> "Space": ...

@final
class Space(Sequence[dict]):
    sampled: bool
    problem: dict
    spec: Spec
    def __len__(self) -> int: ...
    def __getitem__(self, i: int, /) -> dict: ...  # type: ignore[override]
    def index(self, config: Mapping[str, Any]) -> int: ...  # type: ignore[override]
    def indices(self, i: int, /) -> Tuple[int, ...]: ...
    def search(self, strategy: Optional[str] = ..., *,
               settings: Union[Mapping[str, Any], Sequence[str], None] = ...,
               budget: int = ..., seed: int = ..., limited: Optional[bool] = ...) -> "Search": ...

SEARCH_WAIT: int

@final
class Search:
    strategy: str
    ahead: bool
    warnings: Tuple[str, ...]
    space: Space
    def ask(self) -> Optional[int]: ...
    def tell(self, index: int, objective: Optional[float], /) -> None: ...

def strategies() -> Dict[str, Tuple[str, Dict[str, str]]]: ...

def version() -> str: ...
def default_engine() -> Engine: ...
def pointers(*arrays: Any, device: int = ..., stream: _Stream = ...) -> Tuple[Tuple[int, ...], int]: ...
def kernel(source: Optional[str] = ..., name: Optional[str] = ..., *, path: Optional[_Path] = ...,
           params: Optional[Mapping[str, Any]] = ..., flags: Sequence[str] = ...,
           argtypes: Optional[Sequence[Any]] = ..., include_dirs: Optional[Sequence[_Path]] = ...,
           engine: Optional[Engine] = ...) -> Kernel: ...
def tunable(source: Optional[str] = ..., name: Optional[str] = ..., *, path: Optional[_Path] = ...,
            params: Mapping[str, Sequence[Any]], block: Union[str, Sequence[str]] = ...,
            grid: Union[str, Sequence[str]] = ..., problem: Union[str, Sequence[str]] = ...,
            restrictions: Sequence[str] = ..., shared: Optional[str] = ...,
            flags: Sequence[str] = ..., defaults: Optional[Mapping[str, Any]] = ...,
            flag_params: Sequence[str] = ..., argtypes: Optional[Sequence[Any]] = ...,
            include_dirs: Optional[Sequence[_Path]] = ..., engine: Optional[Engine] = ...) -> Kernel: ...
def from_spec(path: _Path, *, argtypes: Optional[Sequence[Any]] = ...,
              engine: Optional[Engine] = ...) -> Kernel: ...
def tune(spec: Union[_Path, dict], *, source: Optional[str] = ..., force: bool = ...,
         quiet: bool = ..., extra_args: Sequence[str] = ..., **options: Any) -> TuneResult: ...
def results(spec: _Path, *, db: Optional[_Path] = ..., device_key: Optional[str] = ...,
            problem: Optional[int] = ..., run: Optional[int] = ...) -> list: ...
