"""What a packet's encryption costs the server, per SSH cipher and MAC asyncssh offers.

    python benchmarks/ssh_ciphers.py [--packets 20000]

A screen sends one packet per frame and per clock tick (a few dozen bytes to a KiB), so the
cipher a client negotiates is paid hundreds of times a second on a busy server; the list the
server offers (:data:`server.ssh.server.ENCRYPTION_ALGS`, :data:`~server.ssh.server.MAC_ALGS`)
follows these figures.  Each line: microseconds per packet, sealed by asyncssh's own
``Encryption`` object exactly as the connection does, for a 64-byte and a 1 KiB packet.
This is a benchmark, not a test: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from asyncssh.encryption import get_encryption, get_encryption_params

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from server.ssh.server import ENCRYPTION_ALGS, MAC_ALGS  # noqa: E402

PAIRS = [
    ("chacha20-poly1305@openssh.com", ""),  # OpenSSH's first choice, not offered
    ("aes128-gcm@openssh.com", ""),
    ("aes256-gcm@openssh.com", ""),
    ("aes128-ctr", "hmac-sha2-256-etm@openssh.com"),  # what OpenSSH takes from this server
    ("aes128-ctr", "hmac-sha1-etm@openssh.com"),
    ("aes128-ctr", "umac-64-etm@openssh.com"),  # OpenSSH's first MAC, not offered
]


def per_packet_us(cipher: str, mac: str, size: int, packets: int) -> float:
    key_size, iv_size, _block, mac_key_size, _hash, etm = get_encryption_params(cipher.encode(), mac.encode())
    enc = get_encryption(cipher.encode(), os.urandom(key_size), os.urandom(iv_size), mac.encode(),
                         os.urandom(mac_key_size), etm)
    packet = os.urandom(size)
    header, body = packet[:4], packet[4:]
    t0 = time.process_time()
    for seq in range(packets):
        enc.encrypt_packet(seq, header, body)
    return (time.process_time() - t0) / packets * 1e6


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--packets", type=int, default=20000)
    args = p.parse_args()
    print(f"{'cipher':<32} {'mac':<32} {'64 B':>8} {'1 KiB':>8}  offered")
    for cipher, mac in PAIRS:
        small = per_packet_us(cipher, mac, 64, args.packets)
        large = per_packet_us(cipher, mac, 1024, args.packets)
        offered = cipher in ENCRYPTION_ALGS and (not mac or mac in MAC_ALGS)
        shown_mac = mac or "(in the cipher)"
        print(f"{cipher:<32} {shown_mac:<32} {small:7.1f}us {large:7.1f}us  {'yes' if offered else 'no'}")


if __name__ == "__main__":
    main()
