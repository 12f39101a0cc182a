"""TLS for ``arbiter serve``: a certificate and key, and optionally a CA for client certificates.

With ``client_ca`` the server asks every client for a certificate signed by that CA and refuses
the handshake of a client without one (mutual TLS).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import grpc


class TlsError(ValueError):
    """A TLS file that cannot be used (a one-line reason for people)."""


@dataclass(frozen=True)
class TlsFiles:
    """PEM files: the server's certificate chain and private key; the CA of client certificates."""

    cert: Path
    key: Path
    client_ca: Path | None = None

    @property
    def mutual(self) -> bool:
        return self.client_ca is not None

    def credentials(self) -> grpc.ServerCredentials:
        """gRPC server credentials; raises TlsError when a file is missing or not PEM."""
        import grpc  # here: `arbiter --help` does not load grpc

        cert = _read_pem(self.cert, "--tls-cert", b"CERTIFICATE")
        key = _read_pem(self.key, "--tls-key", b"PRIVATE KEY")
        client_ca = (
            None if self.client_ca is None else _read_pem(self.client_ca, "--tls-client-ca", b"CERTIFICATE")
        )
        return grpc.ssl_server_credentials(
            [(key, cert)], root_certificates=client_ca, require_client_auth=client_ca is not None
        )


def _read_pem(path: Path, option: str, kind: bytes) -> bytes:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TlsError(f"{option} {path}: cannot read it ({exc.strerror or exc})") from exc
    if b"-----BEGIN " not in data or kind not in data:
        raise TlsError(f"{option} {path}: not a PEM file holding a {kind.decode().lower()}")
    return data


def tls_files(cert: str | None, key: str | None, client_ca: str | None) -> TlsFiles | None:
    """The serve options read together: both or neither of cert and key; a CA only with them."""
    if cert is None and key is None:
        if client_ca is not None:
            raise TlsError("--tls-client-ca needs --tls-cert and --tls-key (mutual TLS is TLS first)")
        return None
    if cert is None or key is None:
        raise TlsError("give --tls-cert and --tls-key together")
    return TlsFiles(Path(cert), Path(key), None if client_ca is None else Path(client_ca))


def is_loopback(host: str) -> bool:
    """Whether ``host`` is only reachable from this machine (localhost, 127.0.0.0/8, ::1)."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def plaintext_warning(host: str, tls: TlsFiles | None) -> str | None:
    """The one-line warning ``arbiter serve`` prints when it serves plain text beyond loopback."""
    if tls is not None or is_loopback(host):
        return None
    return (
        f"warning: serving plain text (no TLS) on {host}: tokens and moves cross the network"
        " unencrypted; give --tls-cert and --tls-key"
    )
