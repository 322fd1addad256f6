"""``voltage``: the command line.  Each subcommand exists only once it works.

Every subcommand runs inside :func:`main`'s one guard, so none of them ends in a
traceback for reasons that are the user's, not the program's:

- **Output closed** (``voltage arena --json | head -n 3``): Python ignores
  SIGPIPE, so the next write raises :class:`BrokenPipeError`.  The guard points
  stdout and stderr at ``/dev/null`` (so the interpreter's last flush cannot
  raise again, "Exception ignored ... BrokenPipeError") and exits with 141,
  what a shell reports for a tool killed by SIGPIPE (``seq 1 9999 | head -1``).
  SIGPIPE is *not* restored to its default: ``voltage serve`` writes to
  sockets, and a peer closing one would then kill the server.
- **Ctrl-C** (KeyboardInterrupt): exit 130 with at most one short line on
  stderr.  ``arena`` catches its own Ctrl-C to sum up the matches played so far
  and returns 130 itself; ``serve`` stops its server and returns 130; ``play``
  and ``replay`` run their app through :func:`tui.run.run_local`, which ends the
  app on SIGINT (Ctrl-C itself is a key in the app's raw terminal) with 130.
- stdout is flushed inside the guard, so a closed pipe met only by the last
  flush (a short ``--help`` into a pipe already closed) is caught too.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from concurrent.futures import Executor

EXIT_PIPE = 141  # 128 + SIGPIPE: what the shell shows for `yes | head -1`
EXIT_INTERRUPTED = 130  # 128 + SIGINT


def _arena(args: argparse.Namespace) -> int:
    from engine.registry import ARENAS

    return ARENAS[args.game].main(args)


def _startups(text: str) -> tuple[int, int, int]:
    """``START:RATE:FULL`` (OpenSSH's MaxStartups form) -> three numbers."""
    try:
        start, rate, full = (int(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not START:RATE:FULL (three numbers, e.g. 10:30:100)") from None
    if not (0 < start <= full and 0 <= rate <= 100):
        raise argparse.ArgumentTypeError(f"{text!r}: START must be at least 1 and at most FULL, RATE 0 to 100")
    return start, rate, full


def _per_address(text: str) -> tuple[float, float]:
    """``BURST:SECONDS`` -> (new sessions at once from one address, then one every SECONDS)."""
    try:
        burst, every = (float(x) for x in text.split(":"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not BURST:SECONDS (two numbers, e.g. 2:5)") from None
    if not (1 <= burst <= 10_000 and 0 < every <= 3600):
        raise argparse.ArgumentTypeError(f"{text!r}: BURST must be 1 to 10000, SECONDS above 0 and at most 3600")
    return burst, every


SESSIONS_PER_ADDRESS_HELP = (
    "new sessions from one address: BURST at once, then one every SECONDS (default 2:5). A classroom "
    "behind one NAT address needs more, e.g. 40:0.5, with --max-per-address 40 and "
    "--max-startups-per-address 40:30:60"
)


def _serve(args: argparse.Namespace) -> int:
    from server.serve import serve_main

    if args.redis:
        from server.cluster.main import cluster_main

        return cluster_main(args.redis, args.edges, host=args.host, port=args.port, data_dir=args.data_dir,
                            public_host=args.public_host, public_port=args.public_port, limits=_limits(args),
                            new_store=args.new_store, web_port=args.web, web_host=args.web_host,
                            web_url=args.web_url)
    return serve_main(
        args.host,
        args.port,
        args.data_dir,
        max_connections=args.max_connections,
        max_per_address=args.max_per_address,
        public_host=args.public_host,
        public_port=args.public_port,
        max_startups=args.max_startups,
        max_startups_per_address=args.max_startups_per_address,
        sessions_per_address=args.sessions_per_address,
        new_store=args.new_store,
        web_port=args.web,
        web_host=args.web_host,
        web_url=args.web_url,
    )


def _edge(args: argparse.Namespace) -> int:
    from server.cluster.main import edge_main

    return edge_main(args.redis, args.host_key, host=args.host, port=args.port, public_host=args.public_host,
                     public_port=args.public_port, fast=args.fast, limits=_limits(args), web_port=args.web,
                     web_host=args.web_host, web_url=args.web_url)


def _limits(args: argparse.Namespace) -> dict[str, object]:
    """The connection limits given on the command line (the others keep their defaults)."""
    names = ("max_connections", "max_per_address", "max_startups", "max_startups_per_address", "sessions_per_address")
    return {k: getattr(args, k) for k in names if getattr(args, k, None) is not None}


def _host(args: argparse.Namespace) -> int:
    from server.cluster.main import host_main

    return host_main(args.redis, args.data_dir, grace=args.grace, new_store=args.new_store)


def _speak(lang: str | None) -> None:
    """This process words in ``lang`` (``--lang``), else in its locale's language (``LC_ALL``,
    ``LC_MESSAGES``, ``LANG``): set before the app runs, whose tasks all copy it."""
    import os

    from tui.i18n import client_language, use

    use(lang or client_language(os.environ))


def _replay(args: argparse.Namespace) -> int:
    from server.replay import Replay, ReplayError
    from server.serve import default_data_dir
    from server.store.db import Store, StoreError

    _speak(args.lang)
    text = str(args.match_id).strip().lstrip("#")
    if not text.isdigit():
        print(f"voltage replay: MATCH_ID is a number, not {args.match_id!r}", file=sys.stderr)
        return 2
    data_dir = args.data_dir or default_data_dir()
    try:
        # Read-only: it works beside a running server, and never changes its data.
        store = Store.open(data_dir, readonly=True)
    except StoreError as e:
        print(f"voltage replay: {e}", file=sys.stderr)
        return 1
    try:
        replay = Replay.load(store, int(text))  # a finished match: every hand shows (s: one seat's view)
        # Its analysis: the one a server kept, else made here (a read-only store keeps none).
        from server.coach import attach_analysis

        attach_analysis(replay, store, None, read_now=True)
    except ReplayError as e:
        from tui import words as W

        print(f"voltage replay: {W.refusal(e)}", file=sys.stderr)
        return 1
    finally:
        store.close()
    from tui.app import make_app
    from tui.run import run_local
    from tui.screens.replay import ReplayBackend

    return run_local(make_app(ReplayBackend(replay)))


def _bot_pool() -> Executor | None:
    """One worker process for the bots, so a searching bot never slows the screen."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        return ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn"))
    except Exception:  # pragma: no cover - no process support: think in a thread instead
        logging.getLogger(__name__).exception("no process pool; bots think in a thread")
        return None


def play_main(name: str | None = None, seed: int | None = None, bot_delay: float = 0.7,
              lang: str | None = None) -> int:
    """``voltage play``: the composition of a local backend (``server.local``) and the app
    (``tui``); the tui itself never imports ``server``.  ``lang``: ``en``, ``ca`` or ``es``
    (None: the locale's)."""
    from server.local import LocalBackend
    from tui.app import make_app
    from tui.run import default_name, run_local

    _speak(lang)
    pool = _bot_pool()
    backend = LocalBackend(seed=seed, bot_delay=bot_delay, executor=pool)
    app = make_app(backend, player_name=name or default_name())
    try:
        return run_local(app)
    finally:
        backend.close()
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)


def _play(args: argparse.Namespace) -> int:
    return play_main(args.name, args.seed, args.bot_delay, args.lang)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="voltage", description="Voltage card games in the terminal.")
    sub = p.add_subparsers(dest="command", required=True)

    a = sub.add_parser("arena", help="play headless bot-versus-bot matches and print the results")
    from engine.registry import ARENAS, GAMES

    a.add_argument("--game", choices=list(ARENAS), default=next(iter(ARENAS)))
    a.add_argument("--players", default=None,
                   help=" ".join(f"{GAMES[gid].title}: {arena.players_help}." for gid, arena in ARENAS.items()))
    a.add_argument("--games", type=int, default=100, help="matches to play (each deal twice, seats swapped)")
    a.add_argument("--seed", type=int, default=0, help="the first deal's seed")
    a.add_argument("--workers", type=int, default=None, help="processes to play in (default: one per core)")
    a.add_argument("--iterations", type=int, default=None, help="search budget per move, in iterations")
    a.add_argument("--think-ms", type=float, default=None, help="search budget per move, in milliseconds")
    a.add_argument("--json", action="store_true", help="one JSON line per match, then a summary line")
    a.set_defaults(func=_arena)

    s = sub.add_parser("serve", help="run the SSH server: a lobby where people play each other")
    s.add_argument("--host", default="", help="address to listen on (default: all)")
    s.add_argument("--port", type=int, default=2222)
    s.add_argument("--data-dir", default=None, help="host key and data (default: the user data dir)")
    s.add_argument("--new-store", action="store_true",
                   help="start an empty database when voltage.db is missing from a data directory used before "
                        "(refused without it: every player, rating and match log would be gone); an existing "
                        "database is never touched")
    s.add_argument("--max-connections", type=int, default=None, help="connections at once (default 1000)")
    s.add_argument("--max-per-address", type=int, default=None, help="connections from one address (default 20)")
    s.add_argument("--max-startups", type=_startups, default=None, metavar="START:RATE:FULL",
                   help="connections not logged in yet, as OpenSSH's MaxStartups (default 10:30:100): "
                        "from START on, new ones are dropped at RATE %%, rising to all at FULL")
    s.add_argument("--max-startups-per-address", type=_startups, default=None, metavar="START:RATE:FULL",
                   help="the same, from one address (default 3:30:10)")
    s.add_argument("--sessions-per-address", type=_per_address, default=None, metavar="BURST:SECONDS",
                   help=SESSIONS_PER_ADDRESS_HELP)
    s.add_argument("--public-host", default="",
                   help="the host players connect to, in every ssh line shown (behind NAT or a proxy)")
    s.add_argument("--public-port", type=int, default=0,
                   help="the port players connect to, when it is not --port (behind NAT or a proxy)")
    s.add_argument("--redis", default=None, metavar="URL",
                   help="split the server: one host process and --edges edge processes on this port, "
                        "Redis between them (redis://HOST:PORT/0 or unix:///PATH)")
    s.add_argument("--edges", type=int, default=None, help="edge processes with --redis (default: one per core)")
    _web_arguments(s)
    s.set_defaults(func=_serve)

    e = sub.add_parser("edge", help="an edge of a split server: SSH sessions whose games the host runs")
    e.add_argument("--redis", required=True, metavar="URL", help="the Redis the host uses")
    e.add_argument("--host-key", required=True, metavar="FILE", help="the host key every edge shows")
    e.add_argument("--host", default="", help="address to listen on (default: all)")
    e.add_argument("--port", type=int, default=2222)
    e.add_argument("--public-host", default="", help="the host players connect to, in every ssh line shown")
    e.add_argument("--public-port", type=int, default=0, help="the port players connect to, when not --port")
    e.add_argument("--max-connections", type=int, default=None, help="connections at once (default 1000)")
    e.add_argument("--max-per-address", type=int, default=None, help="connections from one address (default 20)")
    e.add_argument("--max-startups", type=_startups, default=None, metavar="START:RATE:FULL",
                   help="connections not logged in yet, as for serve (default 10:30:100)")
    e.add_argument("--max-startups-per-address", type=_startups, default=None, metavar="START:RATE:FULL",
                   help="the same, from one address (default 3:30:10)")
    e.add_argument("--sessions-per-address", type=_per_address, default=None, metavar="BURST:SECONDS",
                   help=SESSIONS_PER_ADDRESS_HELP)
    e.add_argument("--fast", action="store_true", help=argparse.SUPPRESS)  # tests: tui.pacing.FAST
    _web_arguments(e)
    e.set_defaults(func=_edge)

    h = sub.add_parser("host", help="the host of a split server: the lobby, the matches and the store")
    h.add_argument("--redis", required=True, metavar="URL", help="the Redis the edges use")
    h.add_argument("--data-dir", default=None, help="the data directory (default: the user data dir)")
    h.add_argument("--grace", type=float, default=60.0, help=argparse.SUPPRESS)
    h.add_argument("--new-store", action="store_true",
                   help="start an empty database when voltage.db is missing from a data directory used before")
    h.set_defaults(func=_host)

    titles = " or ".join(info.title for info in GAMES.values())
    pl = sub.add_parser("play", help=f"play {titles} in this terminal, against bots (or hot-seat)")
    pl.add_argument("--name", default=None, help="your name in the match (default: your login name)")
    pl.add_argument("--seed", type=int, default=None, help="deal the matches from this seed")
    pl.add_argument("--bot-delay", type=float, default=0.7, help="seconds between a bot's moves")
    _lang_argument(pl)
    pl.set_defaults(func=_play)

    r = sub.add_parser("replay", help="replay a finished match from the server's data, step by step")
    r.add_argument("match_id", metavar="MATCH_ID", help="the match's number (from the lobby or `ssh HOST export`)")
    r.add_argument("--data-dir", default=None, help="the server's data directory (default: the user data dir)")
    _lang_argument(r)
    r.set_defaults(func=_replay)

    from server.chat.admin import add_parser as add_admin

    add_admin(sub)
    return p


def _port(text: str) -> int:
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number (0 to 65535)")
    return port


def _lang_argument(p: argparse.ArgumentParser) -> None:
    from tui.i18n import LANGUAGES

    p.add_argument("--lang", choices=LANGUAGES, default=None,
                   help="the language of the screens (default: your locale's: LC_ALL, LC_MESSAGES or LANG)")


def _web_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--web", type=_port, default=None, metavar="PORT",
                   help="also serve the game to browsers on this port (a page with a terminal; off by default)")
    p.add_argument("--web-host", default="", metavar="ADDR", help="address the web page listens on (default: all)")
    p.add_argument("--web-url", default="", metavar="URL",
                   help="the page's address as players open it, when not http://HOST:PORT/ (behind a TLS proxy)")


def _silence_output() -> None:
    """Point stdout and stderr at /dev/null: nothing more can be said, and the
    interpreter's flush at exit must not raise on the closed pipe."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
    except OSError:  # pragma: no cover - no /dev/null
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError, AttributeError):  # a stream without a descriptor
            pass
    os.close(devnull)


def _run(argv: list[str] | None) -> int | str | None:
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except SystemExit as e:  # --help, a usage error: argparse has printed already
        return e.code


def main(argv: list[str] | None = None) -> int | str | None:
    """Run one subcommand; a closed output or Ctrl-C ends it quietly (see the module)."""
    if argv is None:  # (a command line, not a caller in this process)
        from server.memory import reexec_on_c_allocator

        reexec_on_c_allocator(sys.argv[1:])  # a server on the C allocator: server/memory.py
    try:
        code = _run(argv)
        if sys.stdout is not None:  # None: started with stdout closed (`>&-`)
            sys.stdout.flush()
        return code
    except BrokenPipeError:
        _silence_output()
        return EXIT_PIPE
    except KeyboardInterrupt:
        try:
            print("voltage: interrupted", file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass
        return EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
