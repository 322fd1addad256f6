"""``voltage admin``: the operator's chat commands, run beside a running server on its data
directory (SQLite's own locking lets the two write; the server reads silences for every
line, so a silence holds from the next line on).

- ``voltage admin mute NAME 15m``: silence NAME (and the key holding it) for a time
  (``90s``, ``15m``, ``2h``, ``1d``): their lines reach nobody but them;
- ``voltage admin unmute NAME``: lift it;
- ``voltage admin mutes``: the silences in force;
- ``voltage admin chat-log [--match ID | --lobby] [--name NAME] [-n N]``: the last lines,
  with the time, the room, the author and whether they were silenced.

Every line printed is plain text; a line's own text was cleaned when it was said
(:mod:`server.chat.text`), so the log cannot drive the operator's terminal either.
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from server.chat import moderation, storage


def _when(at: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(at))


def run(args: argparse.Namespace) -> int:
    from server.serve import default_data_dir
    from server.store.db import Store, StoreError

    data_dir = args.data_dir or default_data_dir()
    try:
        # (lock=False: beside a running server, which holds the directory's lock)
        store = Store.open(data_dir, readonly=args.admin == "chat-log", lock=False)
    except StoreError as e:
        print(f"voltage admin: {e}", file=sys.stderr)
        return 1
    try:
        return _run(args, store)
    finally:
        store.close()


def _run(args: argparse.Namespace, store: Any) -> int:
    out = sys.stdout
    if args.admin == "mute":
        try:
            seconds = moderation.parse_duration(args.duration)
        except ValueError as e:
            print(f"voltage admin mute: {e}", file=sys.stderr)
            return 2
        until = time.time() + seconds
        moderation.silence(store, args.name, until)
        print(f"{args.name} is silenced until {_when(until)}: their lines reach nobody but them", file=out)
        return 0
    if args.admin == "unmute":
        if moderation.unsilence(store, args.name):
            print(f"{args.name} may talk again", file=out)
            return 0
        print(f"voltage admin unmute: {args.name} is not silenced", file=sys.stderr)
        return 1
    if args.admin == "mutes":
        rows = moderation.silences(store)
        for r in rows:
            print(f"{r['name']}  until {_when(r['until'])}", file=out)
        if not rows:
            print("nobody is silenced", file=out)
        return 0
    rows = storage.log_lines(store, match_id=args.match, lobby=args.lobby, name=args.name or "", limit=args.n)
    for r in rows:
        where = "lobby" if r["match_id"] is None else f"#{r['match_id']} {r['room']}"
        said = f"[{r['phrase']}]" if r["phrase"] else r["text"]
        mark = "  (silenced: only they saw it)" if r["shadow"] else ""
        print(f"{_when(r['at'])}  {where}  {r['name']}: {said}{mark}", file=out)
    return 0


def add_parser(sub: Any) -> None:
    a = sub.add_parser("admin", help="the operator's tools: silence a player's chat, read the chat's log")
    a.add_argument("--data-dir", default=None, help="the server's data directory (default: the user data dir)")
    cmds = a.add_subparsers(dest="admin", required=True)
    m = cmds.add_parser("mute", help="silence NAME's chat for a time: their lines reach nobody but them")
    m.add_argument("name", metavar="NAME")
    m.add_argument("duration", metavar="DURATION", help="how long: 90s, 15m, 2h, 1d")
    u = cmds.add_parser("unmute", help="lift NAME's silence")
    u.add_argument("name", metavar="NAME")
    cmds.add_parser("mutes", help="the silences in force")
    c = cmds.add_parser("chat-log", help="the last chat lines, silenced ones marked")
    where = c.add_mutually_exclusive_group()
    where.add_argument("--match", type=int, default=None, metavar="ID", help="one match's lines (both rooms)")
    where.add_argument("--lobby", action="store_true", help="the lobby's lines only")
    c.add_argument("--name", default=None, help="one author's lines")
    c.add_argument("-n", type=int, default=50, help="how many lines (default 50)")
    a.set_defaults(func=run)
