"""The deployment files (Dockerfile, compose.yaml, deploy/k8s/) agree with the code.

No container engine or cluster runs here: these tests parse the files and check every command
against the real command line (click parses its arguments, so a flag that does not exist or a
value it refuses fails here), the ports against the flags and defaults, the probes against the
health service and the web routes, and names, labels, selectors and Secret keys against each other.
"""

from __future__ import annotations

import json
import re
import shlex
import tomllib
from typing import Any

import click
import pytest
import yaml
from arbiter.cli import main
from arbiter.transport.server import SERVICE_NAME
from click.testing import CliRunner

from tests.conftest import ROOT

K8S = ROOT / "deploy" / "k8s"
Doc = dict[str, Any]


def k8s_documents() -> list[Doc]:
    docs: list[Doc] = []
    for path in sorted(K8S.glob("*.yaml")):
        docs.extend(doc for doc in yaml.safe_load_all(path.read_text()) if doc)
    return docs


def of_kind(kind: str) -> list[Doc]:
    return [doc for doc in k8s_documents() if doc["kind"] == kind]


def one(kind: str, name: str) -> Doc:
    found = [doc for doc in of_kind(kind) if doc["metadata"]["name"] == name]
    assert len(found) == 1, f"{kind} {name}: {len(found)} found"
    return found[0]


def workloads() -> list[Doc]:
    return of_kind("StatefulSet") + of_kind("Deployment")


def containers(workload: Doc) -> list[Doc]:
    spec = workload["spec"]["template"]["spec"]
    return [*spec.get("initContainers", []), *spec["containers"]]


def dockerfile() -> list[tuple[str, str]]:
    """(instruction, argument) pairs, continuation lines joined, comments dropped."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line else "")
        for line in lines
        if line and not line.startswith("#")
    ]


def instruction(name: str) -> list[str]:
    return [argument for found, argument in dockerfile() if found == name]


def entrypoint() -> list[str]:
    (found,) = instruction("ENTRYPOINT")
    value = json.loads(found)
    assert isinstance(value, list)
    return value


def command_of(args: list[str]) -> tuple[click.Command, list[str], list[str]]:
    """The click command ``arbiter ARGS`` runs, its name path and its own arguments."""
    command: click.Command = main
    names: list[str] = []
    rest = list(args)
    while isinstance(command, click.Group):
        assert rest, f"arbiter {' '.join(names)} needs a subcommand"
        name = rest.pop(0)
        assert name in command.commands, f"arbiter has no command {' '.join([*names, name])!r}"
        command = command.commands[name]
        names.append(name)
    return command, names, rest


def parsed(args: list[str]) -> dict[str, Any]:
    """``arbiter ARGS`` parsed by click itself (no callback runs); its parameters by name."""
    command, names, rest = command_of(args)
    help_text = CliRunner().invoke(main, [*names, "--help"]).output
    for flag in (a.split("=", 1)[0] for a in rest if a.startswith("--")):
        assert re.search(rf"(^|\s){re.escape(flag)}[\s,=]", help_text), (
            f"{flag} is not in arbiter {names} --help"
        )
    with command.make_context(" ".join(["arbiter", *names]), list(rest)) as context:
        return dict(context.params)


def default_of(names: list[str], param: str) -> Any:
    command, _, _ = command_of(names)
    (found,) = [p for p in command.params if p.name == param]
    return found.default


def envvar_of(names: list[str], param: str) -> Any:
    command, _, _ = command_of(names)
    (found,) = [p for p in command.params if p.name == param]
    return found.envvar


def port_of(address: str) -> int:
    return int(address.rsplit(":", 1)[1])


# --- every command is a real one ---------------------------------------------------------------


def all_commands() -> list[tuple[str, list[str]]]:
    found = [("Dockerfile CMD", json.loads(instruction("CMD")[0]))]
    for workload in workloads():
        for container in containers(workload):
            assert "command" not in container, "the image's ENTRYPOINT (arbiter) runs; give args only"
            found.append((f"{workload['metadata']['name']}/{container['name']}", container["args"]))
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    for name, service in compose["services"].items():
        if service.get("image", "").startswith("arbiter") or "build" in service:
            found.append((f"compose {name}", service["command"]))
    return found


@pytest.mark.parametrize("where,args", all_commands(), ids=lambda v: v if isinstance(v, str) else "")
def test_every_command_parses_as_an_arbiter_command(where, args):
    assert args and all(isinstance(a, str) for a in args), f"{where}: args must be strings: {args}"
    params = parsed(args)
    if command_of(args)[1] == ["serve"]:
        assert params["host"] == "0.0.0.0", f"{where}: a node in a container listens on every address"


def test_the_image_runs_the_projects_own_command():
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert entrypoint() == ["arbiter"] and scripts["arbiter"] == "arbiter.cli:main"
    (base,) = instruction("FROM")
    assert base == "python:3.11-slim"
    installs = " ".join(instruction("RUN"))
    assert "pip install ./clients/python" in installs and "pip install ." in installs
    for source in instruction("COPY"):
        for path in shlex.split(source)[:-1]:
            assert (ROOT / path).exists(), f"COPY {path}: not in the repository"
    # The image's user is the one the manifests run as.
    (user,) = instruction("USER")
    for workload in workloads():
        assert workload["spec"]["template"]["spec"]["securityContext"]["runAsUser"] == int(user)


def test_the_image_exposes_the_ports_its_command_uses():
    exposed = {int(p) for line in instruction("EXPOSE") for p in line.split()}
    params = parsed(json.loads(instruction("CMD")[0]))
    assert params["port"] in exposed and port_of(params["metrics_address"]) in exposed
    assert default_of(["web"], "port") in exposed


# --- Kubernetes ---------------------------------------------------------------------------------


def node_set() -> Doc:
    return one("StatefulSet", "arbiter-node")


def container_named(workload: Doc, name: str) -> Doc:
    (found,) = [c for c in workload["spec"]["template"]["spec"]["containers"] if c["name"] == name]
    return found


def named_ports(container: Doc) -> dict[str, int]:
    return {p["name"]: p["containerPort"] for p in container["ports"]}


def test_node_ports_equal_the_serve_flags_and_defaults():
    node = container_named(node_set(), "arbiter")
    params = parsed(node["args"])
    ports = named_ports(node)
    assert ports["grpc"] == params["port"] == default_of(["serve"], "port") == 50051
    assert ports["metrics"] == port_of(params["metrics_address"])


def test_nodes_advertise_their_stable_name_under_the_headless_service():
    """Other nodes redirect bots to ``--advertise``: the pod's own name under the StatefulSet's
    headless Service, on the port it serves."""
    node_set_ = node_set()
    node = container_named(node_set_, "arbiter")
    params = parsed(node["args"])
    host, port = str(params["advertise"]).rsplit(":", 1)
    assert int(port) == params["port"]
    service = one("Service", node_set_["spec"]["serviceName"])
    assert service["spec"]["clusterIP"] == "None"  # headless: one DNS name per pod
    assert host == f"$(POD_NAME).{service['metadata']['name']}"
    env = {e["name"]: e for e in node["env"]}
    assert env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"


def test_node_probes_ask_the_grpc_health_service_on_the_bot_port():
    node = container_named(node_set(), "arbiter")
    grpc_port = named_ports(node)["grpc"]
    readiness, liveness = node["readinessProbe"]["grpc"], node["livenessProbe"]["grpc"]
    assert readiness["port"] == liveness["port"] == grpc_port
    # Readiness follows the bot service (NOT_SERVING from the moment a node stops), liveness the
    # server as a whole; both are set by transport/server.py.
    assert readiness["service"] == SERVICE_NAME == "arbiter.v1.BotService"
    assert liveness.get("service", "") == ""


def test_nodes_get_more_time_to_stop_than_their_grace():
    node_set_ = node_set()
    params = parsed(container_named(node_set_, "arbiter")["args"])
    assert node_set_["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] > params["grace"] + 5


def test_the_schema_is_made_before_the_node_starts():
    (init,) = node_set()["spec"]["template"]["spec"]["initContainers"]
    assert command_of(init["args"])[1] == ["db", "upgrade"]
    assert node_set()["spec"]["podManagementPolicy"] == "OrderedReady"


def test_web_ports_and_probes_match_arbiter_web():
    web = one("Deployment", "arbiter-web")
    container = container_named(web, "web")
    params = parsed(container["args"])
    ports = named_ports(container)
    assert ports["http"] == params["port"] == default_of(["web"], "port")
    from arbiter.web.app import create_app

    class NoStore:
        """Only what building the app reads of a store: the key of the session cookies."""

        def web_secret(self) -> bytes:
            return bytes(32)

    routes = {getattr(route, "path", None) for route in create_app(NoStore(), None).routes}  # type: ignore[arg-type]
    for probe in (container["readinessProbe"], container["livenessProbe"]):
        assert probe["httpGet"]["port"] in ports
        assert probe["httpGet"]["path"] in routes


def selected_pods(selector: dict[str, str]) -> list[tuple[Doc, Doc]]:
    """(workload, pod template) pairs whose labels carry every label of ``selector``."""
    return [
        (w, w["spec"]["template"])
        for w in workloads()
        if selector.items() <= w["spec"]["template"]["metadata"]["labels"].items()
    ]


def test_selectors_match_their_own_pods_and_no_others():
    for workload in workloads():
        selector = workload["spec"]["selector"]["matchLabels"]
        assert selector.items() <= workload["spec"]["template"]["metadata"]["labels"].items()
        assert [w["metadata"]["name"] for w, _ in selected_pods(selector)] == [workload["metadata"]["name"]]


def test_services_select_pods_and_target_their_named_ports():
    for service in of_kind("Service"):
        pods = selected_pods(service["spec"]["selector"])
        assert len(pods) == 1, f"Service {service['metadata']['name']} selects {len(pods)} workloads"
        _workload, template = pods[0]
        names = {p["name"] for c in template["spec"]["containers"] for p in c["ports"]}
        for port in service["spec"]["ports"]:
            assert port["targetPort"] in names, f"{service['metadata']['name']}: no port {port['targetPort']}"


def test_the_nodes_have_stable_addresses_from_a_headless_service():
    service = one("Service", node_set()["spec"]["serviceName"])
    assert service["spec"]["clusterIP"] == "None"
    assert [w["metadata"]["name"] for w, _ in selected_pods(service["spec"]["selector"])] == ["arbiter-node"]


def test_the_disruption_budget_covers_the_nodes():
    budget = one("PodDisruptionBudget", "arbiter-node")
    pods = selected_pods(budget["spec"]["selector"]["matchLabels"])
    assert [w["metadata"]["name"] for w, _ in pods] == ["arbiter-node"]
    assert budget["spec"]["maxUnavailable"] == 1 < node_set()["spec"]["replicas"]


def test_the_database_url_comes_from_the_secret_under_the_name_the_commands_read():
    secrets = {s["metadata"]["name"]: s for s in of_kind("Secret")}
    uses = 0
    for workload in workloads():
        for container in containers(workload):
            names = command_of(container["args"])[1]
            (env,) = [e for e in container["env"] if "secretKeyRef" in e.get("valueFrom", {})]
            assert env["name"] == envvar_of(names, "database") == "ARBITER_DATABASE"
            ref = env["valueFrom"]["secretKeyRef"]
            secret = secrets[ref["name"]]
            assert ref["key"] in {**secret.get("stringData", {}), **secret.get("data", {})}
            uses += 1
    assert uses == 3  # the init container, the node, the web process


# --- compose.yaml -------------------------------------------------------------------------------


def test_compose_agrees_with_the_commands_and_postgres():
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"postgres", "node", "web"}
    node, web, postgres = services["node"], services["web"], services["postgres"]
    node_params, web_params = parsed(node["command"]), parsed(web["command"])
    published = {int(p.split(":")[-1]) for p in node["ports"]}
    assert published == {node_params["port"], port_of(node_params["metrics_address"])}
    assert {int(p.split(":")[-1]) for p in web["ports"]} == {web_params["port"]}
    assert web["image"] == node["image"] and "build" in node
    pg = postgres["environment"]
    expected = (
        f"postgresql://{pg['POSTGRES_USER']}:{pg['POSTGRES_PASSWORD']}@postgres:5432/{pg['POSTGRES_DB']}"
    )
    for service, names in ((node, ["serve"]), (web, ["web"])):
        assert service["environment"][envvar_of(names, "database")] == expected
        for dependency in service["depends_on"]:
            assert dependency in services
    # docker compose stop waits stop_grace_period before it kills: more than --grace.
    assert int(node["stop_grace_period"].rstrip("s")) > node_params["grace"]
