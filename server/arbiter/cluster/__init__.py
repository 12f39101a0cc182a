"""Several arbiter nodes on one PostgreSQL database (docs/cluster.md).

``registry``: the SQL of node registrations (lease, epoch), takeovers and ladder claims.
``tokens``: the short-lived join tokens a redirect carries. ``member``: one node's part in the
cluster at run time (heartbeats, takeovers, redirects, draining). ``seeks``: the seeks' rows and
their claim; ``matchmaker``: the Matchmaker of a cluster node, over those rows.
"""

from .member import ClusterMember, ClusterSettings, Placement
from .registry import NodeRegistry, NotPostgres
from .tokens import make_join_token, read_join_token

__all__ = [
    "ClusterMember",
    "ClusterSettings",
    "NodeRegistry",
    "NotPostgres",
    "Placement",
    "make_join_token",
    "read_join_token",
]
