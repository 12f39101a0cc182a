"""The arbiter's address as the SDK connects to it: ``HOST:PORT``, with port 50051 when none is given.

gRPC itself would take port 443 for a bare ``HOST``, which is never where an arbiter listens by
default (``arbiter serve`` listens on 50051).

    >>> with_default_port("localhost")
    'localhost:50051'
    >>> with_default_port("[::1]")
    '[::1]:50051'
    >>> with_default_port("arbiter.example:7000")
    'arbiter.example:7000'
"""

from __future__ import annotations

import re

#: The port of an address given without one (``arbiter serve``'s default port).
DEFAULT_PORT = 50051

# gRPC target schemes (unix:PATH, dns:///HOST:PORT, ipv4:ADDR, ...): left as they are.
_SCHEME = re.compile(r"^(dns|unix|unix-abstract|ipv4|ipv6|vsock|xds):(?!\d+$)")


def with_default_port(address: str) -> str:
    """``address`` with ``:50051`` added when it names no port.

    ``HOST``, ``HOST:`` and ``[IPV6]`` get the default port; so does a bare IPv6 address such as
    ``::1`` (an IPv6 address with a port is written ``[::1]:7000``). ``HOST:PORT``,
    ``[IPV6]:PORT`` and gRPC targets with a scheme (``unix:/run/arbiter.sock``, ``dns:///...``)
    are returned unchanged.
    """
    address = address.strip()
    if not address or _SCHEME.match(address):
        return address
    if address.startswith("["):
        return f"{address}:{DEFAULT_PORT}" if address.endswith("]") else address
    colons = address.count(":")
    if colons == 0:
        return f"{address}:{DEFAULT_PORT}"
    if colons == 1:
        return f"{address}{DEFAULT_PORT}" if address.endswith(":") else address
    return f"[{address}]:{DEFAULT_PORT}"  # an IPv6 address without brackets has no port


__all__ = ["DEFAULT_PORT", "with_default_port"]
