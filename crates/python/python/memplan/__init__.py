"""memplan: static memory planning for computation graphs and PyTorch memory snapshots.

Three functions, each the work of the ``memplan`` command line (which ``pip install
memplan`` also installs) without leaving Python:

- :func:`plan` plans a model or graph file (ONNX, TFLite, memplan's JSON or text, a
  MiniMalloc CSV) into one arena: every tensor's offset, the peak, the lower bound;
- :func:`snapshot` reads a PyTorch CUDA memory snapshot (the dict that
  ``torch.cuda.memory._snapshot()`` returns, or a file ``_dump_snapshot`` wrote) and
  says what the caching allocator used and what a plan of the same blocks needs;
- :func:`html` writes one self-contained HTML file of memplan's view, which also
  displays inline in a notebook.

A :class:`Snapshot` replays PyTorch's caching allocator under other
``PYTORCH_CUDA_ALLOC_CONF`` settings (:meth:`Snapshot.replay`) and sweeps the usual
ones (:meth:`Snapshot.sweep`).

``import memplan`` imports no torch; torch is never needed.
"""

from __future__ import annotations

import html as _html
import json
import os
import pickle
import re
from typing import Any, Callable, Dict, List, Mapping, Optional, Pattern, Sequence, Tuple, Union

from . import _memplan
from ._memplan import Error

__all__ = ["plan", "snapshot", "html", "Plan", "Snapshot", "Replay", "Sweep", "View", "Error"]
__version__ = "0.1.0"

#: ``memplan plan``'s default search budget (its ``--budget``), also the first
#: view's in :func:`html`, so that the page's search looks as long.
_PLAN_BUDGET_MS = 1000

#: Models up to this size are inlined as they are by :func:`html` (the page's form
#: can then change their dims and bounds); larger ones as their graph, without
#: weights.
_INLINE_MODEL = 16 << 20

#: A file to read: a path, or its bytes.
Source = Union[str, "os.PathLike[str]", bytes, bytearray, memoryview]


class Plan:
    """A plan of one arena, as ``memplan plan`` reports it.

    Sizes and offsets are bytes; steps count the ops in the plan's order (a tensor
    lives from ``start`` to ``end``, inclusive).
    """

    def __init__(
        self,
        outcome: _memplan.Outcome,
        source: Tuple[str, Any],
        doc: Optional[Dict[str, Any]] = None,
        read: Optional[Dict[str, Any]] = None,
    ) -> None:
        self._outcome = outcome
        self._source = source
        self._read = read or {}
        self._doc: Dict[str, Any] = doc if doc is not None else json.loads(outcome.json())

    @property
    def name(self) -> str:
        """The graph's name."""
        return self._doc["graph"]

    @property
    def strategy(self) -> str:
        return self._doc["strategy"]

    @property
    def peak(self) -> int:
        """The arena's size: the highest end of any tensor's range."""
        return self._doc["peak_bytes"]

    @property
    def lower_bound(self) -> int:
        """The most bytes live at one step: no plan of this order needs less."""
        return self._doc["lower_bound"]

    @property
    def naive(self) -> int:
        """Every tensor in its own place: the sum of the sizes."""
        return self._doc["naive_bytes"]

    @property
    def ratio(self) -> float:
        """``peak / lower_bound``."""
        return self._doc["ratio"]

    @property
    def valid(self) -> bool:
        """True when the plan passed the independent checker as it was made."""
        return self._doc["valid"]

    @property
    def steps(self) -> int:
        return self._doc["steps"]

    @property
    def order(self) -> List[int]:
        """The ops' indices in the order planned."""
        return list(self._doc["order"])

    @property
    def tensors(self) -> List[Dict[str, Any]]:
        """One dict per arena tensor: id, name, size, start, end, offset, pool."""
        return [dict(t) for t in self._doc["tensors"]]

    @property
    def offsets(self) -> Dict[str, int]:
        """Each arena tensor's offset, by name."""
        return {t["name"]: t["offset"] for t in self._doc["tensors"]}

    @property
    def bounds(self) -> List[Dict[str, Any]]:
        """The values whose size depends on the input data (a detector's NonZero,
        NonMaxSuppression, TopK ...), each planned at ``dims``: its worst case
        ``worst`` and ``why``, or the bound given in ``value_shapes``
        (``given``). The plan holds for every input within them."""
        return [dict(b) for b in self._doc.get("bounds", [])]

    @property
    def notes(self) -> List[str]:
        """What the reader noted about the file (dims it assumed, shapes it fixed)."""
        return list(self._doc.get("notes", []))

    def columns(self) -> Dict[str, List[Any]]:
        """The tensors as a dict of equal-length lists (name, size, start, end,
        offset, pool): ready for ``pandas.DataFrame`` or numpy."""
        keys = ("name", "size", "start", "end", "offset", "pool")
        tensors = self._doc["tensors"]
        return {k: [t[k] for t in tensors] for k in keys}

    def check(self) -> bool:
        """Runs memplan's independent checker on the plan: True when no two tensors
        that live at the same time overlap and every tensor is placed; raises
        :class:`Error` listing the violations otherwise."""
        violations = self._outcome.check()
        if violations:
            shown = "; ".join(violations[:10])
            more = f" (and {len(violations) - 10} more)" if len(violations) > 10 else ""
            raise Error(f"the plan is invalid: {shown}{more}")
        return True

    def to_dict(self) -> Dict[str, Any]:
        """The report as a dict (a copy of what :meth:`to_json` holds)."""
        return json.loads(self._outcome.json())

    def to_json(self) -> str:
        """The report as ``memplan plan --json -`` prints it (a plan file that
        ``memplan check`` reads)."""
        return self._outcome.json()

    def to_svg(self, path: Optional[Union[str, "os.PathLike[str]"]] = None) -> str:
        """The time-by-address chart as SVG text; also written to ``path`` if given."""
        svg = self._outcome.svg()
        if path is not None:
            with open(path, "w", encoding="utf-8") as f:
                f.write(svg)
        return svg

    def _page_file(self) -> Tuple[str, bytes, List[Tuple[str, str]]]:
        """The file the page opens for this plan, and the view options that read it
        as this plan did: a model of up to :data:`_INLINE_MODEL` bytes as it is,
        with its dims and bounds (the page's form then changes them), else the
        graph in memplan's JSON (without weights)."""
        kind, value = self._source
        if kind == "path" and os.path.getsize(value) <= _INLINE_MODEL:
            with open(value, "rb") as f:
                name, data = os.path.basename(value), f.read()
        elif kind == "bytes" and len(value) <= _INLINE_MODEL:
            name, data = self.name, value
        else:
            name, data = "", b""
        # the page's view takes dims and bounds, not whole input shapes
        if data and not self._read.get("input_shapes") and _memplan.is_model(data):
            view: List[Tuple[str, str]] = []
            dims = self._read.get("dims", {})
            if dims:
                view.append(("dims", ";".join(f"{k}={int(v)}" for k, v in dims.items())))
            values = self._read.get("value_shapes", {})
            if values:
                view.append(("values", ";".join(f"{k}={_dims_flag(v)}" for k, v in values.items())))
            return name, data, view
        return f"{self.name}.json", self._outcome.graph_json().encode(), []

    def __str__(self) -> str:
        return self._outcome.text()

    def __repr__(self) -> str:
        verdict = "valid" if self.valid else "INVALID"
        return (
            f"<memplan.{type(self).__name__} {self.name!r}: peak {self.peak} B, "
            f"lower bound {self.lower_bound} B ({self.ratio:.4f}x), {self.strategy}, {verdict}>"
        )


class Snapshot(Plan):
    """A PyTorch memory snapshot's figures beside memplan's plan of the same blocks.

    The plan's own figures (``peak``, ``lower_bound``, ``tensors`` ...) are those of
    the blocks; the allocator's are ``live_peak``, ``reserved_peak`` and
    ``reserved_unused``.
    """

    @property
    def figures(self) -> Dict[str, Any]:
        """Every figure of the snapshot, as ``memplan plan --json`` writes them."""
        return dict(self._doc["snapshot"])

    @property
    def live_peak(self) -> int:
        """The most bytes allocated at once (torch's ``max_memory_allocated``)."""
        return self._doc["snapshot"]["live_peak"]

    @property
    def reserved_peak(self) -> int:
        """The most bytes reserved at once (torch's ``max_memory_reserved``)."""
        return self._doc["snapshot"]["reserved_peak"]

    @property
    def reserved_unused(self) -> int:
        """Bytes reserved but not allocated at the reserved peak."""
        return self._doc["snapshot"]["unused_at_reserved_peak"]

    @property
    def plan_peak(self) -> int:
        """What a plan of the same blocks at the same times needs."""
        return self._doc["snapshot"]["plan_peak"]

    @property
    def oom(self) -> Optional[Dict[str, Any]]:
        """For a snapshot taken at an out-of-memory error: the failed request
        (``size``, ``allocated``, ``reserved`` ...), the ``capacity`` it was
        judged against, and ``fits``: whether a plan of the same blocks and the
        request fits in it (then the failure was fragmentation). None otherwise."""
        oom = self._doc["snapshot"].get("oom")
        return dict(oom) if oom is not None else None

    @property
    def verdict(self) -> Optional[str]:
        """``"fragmentation"`` when the failed request would have fitted in a
        plan, ``"too little memory"`` when no layout fits, None without an oom."""
        oom = self.oom
        if oom is None:
            return None
        return "fragmentation" if oom["fits"] else "too little memory"

    @property
    def holders(self) -> List[Dict[str, Any]]:
        """What holds the memory at the live peak, by allocating frame."""
        return [dict(h) for h in self._doc["snapshot"]["holders"]]

    def _page_file(self) -> Tuple[str, bytes, List[Tuple[str, str]]]:
        """The snapshot itself: the page reads snapshots."""
        return _snapshot_file(self._source, self.name) + ([],)

    def replay(
        self,
        alloc_conf: Optional[str] = None,
        capacity: Union[int, str, None] = None,
    ) -> "Replay":
        """PyTorch's caching allocator replayed over this snapshot's trace under
        ``alloc_conf`` (``PYTORCH_CUDA_ALLOC_CONF``'s own syntax, e.g.
        ``"expandable_segments:True"``; None: the settings the run recorded), with
        at most ``capacity`` bytes reserved (an int, or ``"6GiB"``; the cap of
        ``set_per_process_memory_fraction``). What ``memplan replay`` reports:
        the reserved peak, the ``cudaMalloc`` calls, where the run fails, and how
        the recorded settings' replay agrees with the recording."""
        kind, value = self._source
        text = _native(lambda: _memplan.replay(
            path=value if kind == "path" else None,
            data=bytes(value) if kind == "bytes" else None,
            conf=alloc_conf,
            capacity=None if capacity is None else str(capacity),
            device=self._read.get("device"),
        ))
        return Replay(json.loads(text))

    def sweep(self, capacity: Union[int, str, None] = None) -> "Sweep":
        """The settings people reach for (the recorded ones, ``expandable_segments``
        switched, ``max_split_size_mb`` and ``roundup_power2_divisions`` at several
        values, combinations and, with a ``capacity``, ``garbage_collection_threshold``)
        each replayed, with the answer in one line: what ``memplan replay --sweep``
        reports."""
        kind, value = self._source
        text = _native(lambda: _memplan.sweep(
            path=value if kind == "path" else None,
            data=bytes(value) if kind == "bytes" else None,
            capacity=None if capacity is None else str(capacity),
            device=self._read.get("device"),
        ))
        return Sweep(json.loads(text))


class Replay:
    """The caching allocator replayed over a snapshot under some settings
    (:meth:`Snapshot.replay`). Bytes are bytes; an entry is an index into the
    device's trace."""

    def __init__(self, doc: Dict[str, Any]) -> None:
        self._doc = doc

    @property
    def alloc_conf(self) -> str:
        """The settings, in ``PYTORCH_CUDA_ALLOC_CONF``'s syntax (``""``: torch's defaults)."""
        return self._doc["alloc_conf"]

    @property
    def capacity(self) -> Optional[int]:
        """The cap on reserved bytes, when one was given."""
        return self._doc["capacity"]

    @property
    def recorded_settings(self) -> bool:
        """True when these are the settings the run recorded."""
        return self._doc["recorded_settings"]

    @property
    def reserved_peak(self) -> int:
        """The most bytes reserved at once."""
        return self._doc["reserved_peak"]

    @property
    def reserved_unused(self) -> int:
        """Bytes reserved but not allocated at the reserved peak."""
        return self._doc["reserved_peak"] - self._doc["allocated_at_peak"]

    @property
    def segments(self) -> int:
        """``cudaMalloc`` calls and page mappings."""
        return self._doc["segments"]

    @property
    def oom(self) -> Optional[Dict[str, int]]:
        """Where the replayed run fails (``entry``, ``request``, ``allocated``,
        ``reserved``), or None when it finishes."""
        oom = self._doc["oom"]
        return dict(oom) if oom is not None else None

    @property
    def fits(self) -> bool:
        """True when the replayed run finishes."""
        return self._doc["oom"] is None

    @property
    def reserved(self) -> List[Tuple[int, int]]:
        """The reserved bytes after each entry, as ``(entry, bytes)`` where they
        change, the first at entry 0 (empty in a sweep's rows)."""
        return [(e, b) for e, b in self._doc.get("reserved", [])]

    @property
    def agreement(self) -> Optional[Dict[str, Any]]:
        """How the recorded settings' replay agrees with the recording: entries and
        blocks equal, ``cudaMalloc`` sizes in order."""
        a = self._doc.get("agreement")
        return dict(a) if a is not None else None

    @property
    def notes(self) -> List[str]:
        """What the replay had to assume."""
        return list(self._doc["notes"])

    def to_dict(self) -> Dict[str, Any]:
        """Everything, as ``memplan replay --json`` writes it."""
        return json.loads(json.dumps(self._doc))

    def __repr__(self) -> str:
        conf = self.alloc_conf or "torch's defaults"
        outcome = "finishes" if self.fits else f"out of memory at entry {self._doc['oom']['entry']}"
        return f"<memplan.Replay {conf!r}: reserved peak {self.reserved_peak} B, {self.segments} cudaMalloc calls, {outcome}>"


class Sweep:
    """The usual allocator settings replayed over one snapshot (:meth:`Snapshot.sweep`)."""

    def __init__(self, doc: Dict[str, Any]) -> None:
        self._doc = doc

    @property
    def rows(self) -> List[Replay]:
        """One replay per setting, the recorded settings first."""
        return [Replay(r) for r in self._doc["rows"]]

    @property
    def best(self) -> Optional[Replay]:
        """The setting with the lowest reserved peak among those that finish."""
        b = self._doc["best"]
        return Replay(self._doc["rows"][b]) if b is not None else None

    @property
    def answer(self) -> str:
        """The answer in one line."""
        return self._doc["answer"]

    @property
    def live_peak(self) -> int:
        """The most bytes alive at once: no setting reserves less."""
        return self._doc["live_peak"]

    @property
    def plan_peak(self) -> Optional[int]:
        """memplan's plan of the same blocks."""
        return self._doc["plan_peak"]

    def to_dict(self) -> Dict[str, Any]:
        """Everything, as ``memplan replay --sweep --json`` writes it."""
        return json.loads(json.dumps(self._doc))

    def __str__(self) -> str:
        return self.answer

    def __repr__(self) -> str:
        return f"<memplan.Sweep of {len(self._doc['rows'])} settings: {self.answer}>"


class View:
    """One self-contained HTML file of memplan's view: the page, its wasm and the
    data in one file that requests nothing outside it. In a notebook it displays
    inline."""

    def __init__(self, text: str, path: Optional[str] = None) -> None:
        self.text = text
        self.path = path

    def save(self, path: Union[str, "os.PathLike[str]"]) -> str:
        """Writes the file; returns its path."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.text)
        self.path = os.fspath(path)
        return self.path

    def _repr_html_(self) -> str:
        return (
            '<iframe style="width:100%;height:900px;border:1px solid #ccc" '
            f'srcdoc="{_html.escape(self.text, quote=True)}"></iframe>'
        )

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        where = f" at {self.path}" if self.path else ""
        return f"<memplan.View {len(self.text)} characters{where}>"


def _dims_flag(dims: Sequence[int]) -> str:
    return "x".join(str(int(d)) for d in dims)


def _flags(
    strategy: str,
    capacity: Union[int, str, None],
    dims: Optional[Mapping[str, int]],
    input_shapes: Optional[Mapping[str, Sequence[int]]],
    value_shapes: Optional[Mapping[str, Sequence[int]]],
    format: Optional[str],
    align: Union[int, str, None],
    order: Optional[str],
    budget_ms: Optional[int],
    deterministic: bool,
    seed: Optional[int],
    keep_outputs: bool,
    device: Optional[int],
) -> List[str]:
    """The options as the command line's flags: one parser reads both."""
    flags = ["--strategy", str(strategy)]
    for name, value in (
        ("--capacity", capacity),
        ("--format", format),
        ("--align", align),
        ("--order", order),
        ("--budget", budget_ms),
        ("--seed", seed),
        ("--device", device),
    ):
        if value is not None:
            flags += [name, str(value)]
    for name, size in (dims or {}).items():
        flags += ["--dim", f"{name}={int(size)}"]
    for name, shape in (input_shapes or {}).items():
        flags += ["--input-shape", f"{name}={_dims_flag(shape)}"]
    for name, shape in (value_shapes or {}).items():
        flags += ["--value-shape", f"{name}={_dims_flag(shape)}"]
    if deterministic:
        flags.append("--deterministic")
    if keep_outputs:
        flags.append("--keep-outputs")
    return flags


def _source(source: Any, name: Optional[str]) -> Tuple[str, Any]:
    """``("path", path)`` or ``("bytes", bytes)``; a TypeError for anything else."""
    if isinstance(source, (str, os.PathLike)):
        return "path", os.fspath(source)
    if isinstance(source, (bytes, bytearray, memoryview)):
        return "bytes", bytes(source)
    raise TypeError(
        f"memplan reads a path or bytes, not {type(source).__name__}"
        + (" (a snapshot dict goes to memplan.snapshot)" if isinstance(source, dict) else "")
    )


#: The command line's flags in memplan's messages, as this module's arguments.
_ARGUMENTS: List[Tuple[Pattern[str], Union[str, Callable[[Any], str]]]] = [
    (re.compile(r"--dim ([^\s=]+)=([^\s);,]+)"), r'dims={"\1": \2}'),
    (re.compile(r"--input-shape ([^\s=]+)=([^\s);,]+)"), r'input_shapes={"\1": \2}'),
    (re.compile(r"--value-shape ([^\s=]+)=([^\s);,]+)"), r'value_shapes={"\1": \2}'),
    (re.compile(r"--budget\b"), "budget_ms="),
    (re.compile(r"--([a-z]+(?:-[a-z]+)*)"), lambda m: m.group(1).replace("-", "_") + "="),
]


def _in_python_words(message: str) -> str:
    """A message of the command line that names its flags, naming the arguments."""
    for pattern, words in _ARGUMENTS:
        message = pattern.sub(words, message)
    return message


def _native(call: Callable[[], str]) -> str:
    """Runs a call into the native module, its errors in Python's words."""
    try:
        return call()
    except Error as e:
        raise Error(_in_python_words(str(e))) from None


def _outcome(source: Tuple[str, Any], flags: List[str], name: Optional[str]) -> _memplan.Outcome:
    kind, value = source
    try:
        if kind == "path":
            return _memplan.plan(flags, path=value)
        return _memplan.plan(flags, data=value, name=name or "graph")
    except Error as e:
        raise Error(_in_python_words(str(e))) from None


def plan(
    source: Source,
    strategy: str = "best-fit",
    capacity: Union[int, str, None] = None,
    dims: Optional[Mapping[str, int]] = None,
    *,
    input_shapes: Optional[Mapping[str, Sequence[int]]] = None,
    value_shapes: Optional[Mapping[str, Sequence[int]]] = None,
    format: Optional[str] = None,
    align: Union[int, str, None] = None,
    order: Optional[str] = None,
    budget_ms: Optional[int] = None,
    deterministic: bool = False,
    seed: Optional[int] = None,
    keep_outputs: bool = False,
    name: Optional[str] = None,
) -> Plan:
    """Plans the graph in ``source`` (a path, or the file's bytes) into one arena.

    ``strategy`` is one of ``memplan strategies`` (``best-fit``, ``greedy-size``,
    ``search``, ``auto`` ...); ``capacity`` a size (``16 * 2**30`` or ``"16GiB"``)
    that searches stop at; ``dims`` sets a model's free dimensions
    (``{"batch": 8}``), ``input_shapes`` an input's whole shape and
    ``value_shapes`` a bound on a value whose size depends on the data. The other
    options are ``memplan plan``'s flags of the same names. ``name`` names a graph
    read from bytes. Raises :class:`Error` with memplan's message when the file
    cannot be read or planned. A PyTorch snapshot file gives a :class:`Snapshot`.
    """
    src = _source(source, name)
    flags = _flags(strategy, capacity, dims, input_shapes, value_shapes, format, align,
                   order, budget_ms, deterministic, seed, keep_outputs, None)
    outcome = _outcome(src, flags, name)
    read: Dict[str, Any] = {
        "dims": dict(dims or {}),
        "value_shapes": dict(value_shapes or {}),
        "input_shapes": dict(input_shapes or {}),
        "budget_ms": budget_ms,
    }
    return _result(outcome, src, read)


def _result(
    outcome: _memplan.Outcome, src: Tuple[str, Any], read: Dict[str, Any]
) -> Plan:
    """A :class:`Snapshot` when the file was a snapshot, else a :class:`Plan`."""
    doc = json.loads(outcome.json())
    return (Snapshot if "snapshot" in doc else Plan)(outcome, src, doc, read)


def _snapshot_file(source: Tuple[str, Any], name: str) -> Tuple[str, bytes]:
    """The name and bytes of a snapshot to inline: a file's own, or `name`.pickle."""
    kind, value = source
    if kind == "path":
        with open(value, "rb") as f:
            return os.path.basename(value), f.read()
    return f"{name}.pickle", bytes(value)


def _is_snapshot(source: Tuple[str, Any]) -> bool:
    """Whether the file starts like a snapshot (memplan's test, on its head)."""
    kind, value = source
    if kind == "path":
        with open(value, "rb") as f:
            return _memplan.is_snapshot(f.read(2))
    return _memplan.is_snapshot(bytes(value[:2]))


def _snapshot_bytes(obj: Any) -> Tuple[str, Any]:
    """A snapshot dict pickled in memory as ``_dump_snapshot`` would write it; a
    path or bytes as they are."""
    if isinstance(obj, Mapping):
        return "bytes", pickle.dumps(dict(obj), protocol=pickle.DEFAULT_PROTOCOL)
    return _source(obj, None)


def snapshot(
    source: Union[Mapping[str, Any], Source],
    strategy: str = "auto",
    capacity: Union[int, str, None] = None,
    *,
    device: Optional[int] = None,
    budget_ms: Optional[int] = None,
    deterministic: bool = False,
    name: str = "snapshot",
) -> Snapshot:
    """Reads a PyTorch CUDA memory snapshot: the dict ``torch.cuda.memory._snapshot()``
    returns (read in memory, never written to disk), or a file that
    ``torch.cuda.memory._dump_snapshot()`` wrote (a path, or its bytes).

    Returns the allocator's figures (live and reserved peaks, reserved but unused
    memory) beside memplan's plan of the same blocks, and for a snapshot taken at
    an out-of-memory error the verdict: fragmentation, or too little memory for any
    layout (judged at ``capacity``, by default the memory reserved at the failure).
    ``device`` picks a device of a multi-GPU snapshot. The default strategy is
    ``auto`` (the command line's): on long traces it finds the plan at the live
    peak where ``best-fit`` alone stays above it (a Llama generation of 779,201
    entries: 1.0000x against 1.1121x, in about the same time).
    """
    src = _snapshot_bytes(source)
    flags = _flags(strategy, capacity, None, None, None, "snapshot", None, None, budget_ms,
                   deterministic, None, False, device)
    outcome = _outcome(src, flags, name)
    return Snapshot(outcome, src, read={"budget_ms": budget_ms, "device": device})


def html(
    what: Union[Plan, Mapping[str, Any], Source],
    out: Optional[Union[str, "os.PathLike[str]"]] = None,
    *,
    strategy: Optional[str] = None,
) -> View:
    """One self-contained HTML file of memplan's view of ``what``: a :class:`Plan`
    or :class:`Snapshot`, a snapshot dict, or a file (path or bytes) that
    :func:`plan` reads. The page, its wasm and the data are inlined, so the file
    opens in any browser with no server and no network; in a notebook the returned
    :class:`View` displays inline. Written to ``out`` when given.
    ``memplan.html(torch.cuda.memory._snapshot(), "memory.html")`` does what
    ``torch.cuda._memory_viz.trace_plot`` does, with real addresses and the plan.
    """
    budget = _PLAN_BUDGET_MS
    if isinstance(what, Plan):
        file_name, data, read = what._page_file()
        strategy = strategy or what.strategy
        budget = int(what._read.get("budget_ms") or budget)
    else:
        src = _snapshot_bytes(what)
        if _is_snapshot(src):
            # the page reads and plans it: nothing to plan here
            file_name, data = _snapshot_file(src, "snapshot")
            read, strategy = [], strategy or "auto"
        else:
            result = plan(src[1], strategy=strategy or "best-fit")
            file_name, data, read = result._page_file()
            strategy = result.strategy
    view = [("strategy", strategy), ("budget", str(budget))] + read
    text = _memplan.standalone(file_name, data, view)
    page = View(text)
    if out is not None:
        page.save(out)
    return page
