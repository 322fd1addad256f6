"""Memory a crowd leaves behind, given back once it has gone.

A session's screen is tens of thousands of small objects (strips, segments, cells, styles).
When many sessions end together (fifty 400x200 lobbies closed as stuck readers, a crowd gone
after a tournament) their objects are freed, but CPython's own allocator (pymalloc) returns
memory to the system only by whole 1 MiB arenas, and an arena stays while a single object in it
lives.  The few objects made during the crowd's stay that outlive it (entries of the process's
caches: cells, styles, measured strings) sit in nearly every such arena, so the server kept
+137 MB of the +177 MB fifty such sessions took (``benchmarks/attack.py --only readers``).

So the long-lived server processes (``serve``, ``host``, ``edge``) run on the C allocator
(:func:`c_allocator_env`: ``PYTHONMALLOC=malloc``, set by re-executing the command line once at
start, as only the interpreter's start reads it), which gives back any whole free page; and
once a crowd has left (:mod:`server.gcpolicy`: ``release_min_gone`` sessions ended, none for a
while) :func:`release` empties the process's caches, whose entries would pin those pages, runs a
full collection while few sessions are live, and asks the C allocator to return its free pages
(``malloc_trim``).  Measured: 50 such sessions gone leave +6 MB, not +137 MB.
An operator's own ``PYTHONMALLOC`` is left as it is (``PYTHONMALLOC=pymalloc`` keeps CPython's
allocator).
"""

from __future__ import annotations

import ctypes
import functools
import logging
import os
import sys
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)

#: Commands that run a long-lived server process (see the module's notes).
SERVER_COMMANDS = frozenset({"serve", "host", "edge"})

# lru_caches of these packages are memoization only (emptying one costs a recomputation)
_LRU_PACKAGES = ("rich.", "textual.", "tui.", "server.", "engine.")


def c_allocator_env(argv: list[str], environ: Any) -> dict[str, str] | None:
    """The environment to re-execute this command line with so that it runs on the C
    allocator, or None when it should run as it is: not a server command, the operator
    chose an allocator (``PYTHONMALLOC`` set), or not a platform whose C allocator returns
    free pages on request (glibc's ``malloc_trim``)."""
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in SERVER_COMMANDS or "PYTHONMALLOC" in environ or _trim() is None:
        return None
    return {**environ, "PYTHONMALLOC": "malloc"}


def reexec_on_c_allocator(argv: list[str]) -> None:
    """Replace this process by the same command line on the C allocator, when
    :func:`c_allocator_env` says so (the same pid: a supervisor's signals still reach it)."""
    env = c_allocator_env(argv, os.environ)
    if env is None:
        return
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        os.execve(sys.executable, list(sys.orig_argv), env)
    except OSError as e:  # (an interpreter that cannot be started again: run on as it is)
        log.warning("could not start again on the C allocator (%s): memory is given back less", e)


@functools.cache
def _trim() -> Callable[[int], int] | None:
    """glibc's ``malloc_trim``, from the process's own symbols (None elsewhere)."""
    try:
        trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError, TypeError):  # not glibc
        return None
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    return trim


def _lru_caches() -> list[Any]:
    """The ``functools.lru_cache`` functions and methods of the modules of :data:`_LRU_PACKAGES`
    (found through the modules: the collector's lists leave out what ``gc.freeze`` froze)."""
    found: dict[int, Any] = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(_LRU_PACKAGES):
            continue
        for value in list(vars(module).values()):
            members = list(vars(value).values()) if isinstance(value, type) and value.__module__ == name else [value]
            for member in members:
                member = getattr(member, "__func__", member)  # (a classmethod's or staticmethod's function)
                if isinstance(member, functools._lru_cache_wrapper):
                    found[id(member)] = member
    return list(found.values())


def release(collect: Callable[[], object] | None = None) -> float:
    """Empty the caches that keep drawn things, run ``collect`` (a full collection, the
    caller's to choose: it stops the process meanwhile), and give free memory back to the
    system; returns the milliseconds it took.  The caches fill again from the next frames."""
    from tui import frames, textual_compat

    t0 = time.perf_counter()
    frames.forget_cells()
    textual_compat.forget_styles()
    textual_compat.forget_content_strips()
    for cache in _lru_caches():
        cache.cache_clear()
    if collect is not None:
        collect()
    trim = _trim()
    if trim is not None:
        trim(0)
    ms = (time.perf_counter() - t0) * 1000
    log.debug("memory: caches emptied and free pages given back in %.1f ms", ms)
    return ms
