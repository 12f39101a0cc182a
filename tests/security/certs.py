"""Throwaway certificate authorities and certificates (trustme) written as PEM files."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import trustme


@dataclass(frozen=True)
class Pki:
    """A CA, a server certificate for 127.0.0.1/localhost and a client certificate it signed."""

    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path

    def read(self, name: str) -> bytes:
        path: Path = getattr(self, name)
        return path.read_bytes()


def make_pki(folder: Path, name: str = "pki") -> Pki:
    folder = folder / name
    folder.mkdir(parents=True, exist_ok=True)
    ca = trustme.CA()
    server = ca.issue_cert("127.0.0.1", "localhost")
    client = ca.issue_cert("bot-alice.example")
    paths = Pki(*(folder / f for f in ("ca.pem", "server.pem", "server.key", "client.pem", "client.key")))
    ca.cert_pem.write_to_path(str(paths.ca))
    server.private_key_pem.write_to_path(str(paths.server_key))
    client.private_key_pem.write_to_path(str(paths.client_key))
    for cert, path in ((server, paths.server_cert), (client, paths.client_cert)):
        path.write_bytes(b"".join(blob.bytes() for blob in cert.cert_chain_pems))
    return paths
