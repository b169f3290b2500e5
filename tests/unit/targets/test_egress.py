"""The egress policy: its rules, the URL checks made before any connection, every resolved address checked,
and redirects. Nothing here sends a packet off loopback: names are resolved by a resolver the test controls,
refused addresses are refused before a socket opens, and the redirect servers listen on 127.0.0.1/127.0.0.2.
"""

from __future__ import annotations

import ipaddress
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from assay.targets import EgressPolicy, TargetCase, TargetPolicy, build_target, parse_target_spec
from assay.targets.egress import AllowRule, EgressRefusedError, parse_allow
from tests.support.agent_server import AgentBehaviour, AgentServer
from tests.support.resolver import StaticResolver

EXPOSED = EgressPolicy.for_server(allow="", listen_host="0.0.0.0", listen_port=8000, has_api_key=True)
LOCAL = EgressPolicy.for_server(allow="", listen_host="127.0.0.1", listen_port=8000, has_api_key=False)


@pytest.mark.parametrize(
    ("address", "rule"),
    [
        ("169.254.169.254", "link-local"),
        ("fe80::1", "link-local"),
        ("fd00:ec2::254", "metadata"),
        ("::ffff:169.254.169.254", "link-local"),
        ("0.0.0.0", "unspecified"),
        ("::", "unspecified"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("255.255.255.255", "broadcast"),
    ],
)
@pytest.mark.parametrize("policy", [EXPOSED, LOCAL], ids=["exposed", "local"])
def test_always_refused_whatever_the_server(policy: EgressPolicy, address: str, rule: str) -> None:
    refusal = policy.refusal("host.test", ipaddress.ip_address(address), 80)
    assert refusal is not None
    assert rule in refusal


@pytest.mark.parametrize(
    "address", ["127.0.0.1", "::1", "::ffff:127.0.0.1", "10.0.0.1", "192.168.1.5", "fd12::1"]
)
def test_loopback_and_private_only_on_a_local_server(address: str) -> None:
    ip = ipaddress.ip_address(address)
    assert LOCAL.refusal("agent.test", ip, 9000) is None
    refusal = EXPOSED.refusal("agent.test", ip, 9000)
    assert refusal is not None
    assert "ASSAY_TARGET_ALLOW" in refusal


def test_public_addresses_are_allowed() -> None:
    assert EXPOSED.refusal("example.test", ipaddress.ip_address("93.184.216.34"), 443) is None


def test_metadata_names_are_refused_whatever_they_resolve_to() -> None:
    refusal = LOCAL.refusal("metadata.google.internal", ipaddress.ip_address("93.184.216.34"), 80)
    assert refusal is not None
    assert "metadata" in refusal


def test_the_servers_own_address_and_port_are_refused() -> None:
    assert LOCAL.refusal("localhost", ipaddress.ip_address("127.0.0.1"), 8000) is not None
    assert LOCAL.refusal("localhost", ipaddress.ip_address("127.0.0.1"), 8001) is None
    everywhere = EgressPolicy.for_server(
        allow="10.0.0.0/8", listen_host="0.0.0.0", listen_port=8000, has_api_key=True
    )
    assert everywhere.refusal("self.test", ipaddress.ip_address("10.1.2.3"), 8000) is not None
    assert everywhere.refusal("other.test", ipaddress.ip_address("10.1.2.3"), 9000) is None


def test_allow_rules() -> None:
    policy = EgressPolicy.for_server(
        allow="10.1.0.0/16, agent.internal:9000, [fd00::1]:8080, 127.0.0.2",
        listen_host="::",
        listen_port=8000,
        has_api_key=True,
    )
    allowed = [
        ("x.test", "10.1.200.3", 80),
        ("agent.internal", "10.9.9.9", 9000),
        ("AGENT.internal.", "10.9.9.9", 9000),
        ("x.test", "fd00::1", 8080),
        ("x.test", "127.0.0.2", 1234),
    ]
    refused = [
        ("x.test", "10.2.0.1", 80),
        ("agent.internal", "10.9.9.9", 9001),
        ("x.test", "fd00::1", 8081),
        ("x.test", "127.0.0.1", 1234),
        ("agent.internal", "169.254.169.254", 9000),  # never, even for an allowed name
    ]
    for host, address, port in allowed:
        assert policy.refusal(host, ipaddress.ip_address(address), port) is None, (host, address, port)
    for host, address, port in refused:
        assert policy.refusal(host, ipaddress.ip_address(address), port) is not None, (host, address, port)


@pytest.mark.parametrize("entry", ["10.0.0.0/33", "host:0", "host:http", "[fd00::1]:99999"])
def test_a_bad_allow_entry_is_refused_with_its_name(entry: str) -> None:
    with pytest.raises(ValueError, match="ASSAY_TARGET_ALLOW entry"):
        parse_allow(f"10.0.0.1, {entry}")


def test_allow_rule_forms() -> None:
    assert AllowRule.parse("agent.internal") == AllowRule(host="agent.internal")
    assert AllowRule.parse("10.0.0.1:80") == AllowRule(network=ipaddress.ip_network("10.0.0.1/32"), port=80)


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[fd00:ec2::254]/", "metadata"),
        ("http://[::ffff:169.254.169.254]/", "link-local"),
        ("http://[::ffff:127.0.0.1]:9000/", "loopback or private"),
        ("http://0.0.0.0:9000/", "unspecified"),
        ("http://10.0.0.1/", "loopback or private"),
        ("http://metadata.google.internal/computeMetadata/v1/", "metadata"),
        ("http://METADATA.google.internal./", "metadata"),
        ("http://169.254.169.254@127.0.0.1/", "credentials"),
        ("http://user:pw@agent.test/", "credentials"),
        ("http://2130706433/", "not a canonical IP address"),
        ("http://0177.0.0.1/", "not a canonical IP address"),
        ("http://0x7f.0.0.1/", "not a canonical IP address"),
        ("http://127.1/", "not a canonical IP address"),
        ("http://127.0.0.1:8000/api/health", "own address"),
    ],
)
def test_urls_refused_before_any_connection(url: str, words: str) -> None:
    policy = EgressPolicy.for_server(allow="", listen_host="127.0.0.1", listen_port=8000, has_api_key=True)
    with pytest.raises(EgressRefusedError, match=words):
        policy.check_url(url)


def test_a_name_is_left_to_the_connection_check() -> None:
    EXPOSED.check_url("http://agent.test:9000/answer")  # resolved (and checked) when connecting


def test_the_cli_policy_has_no_rule() -> None:
    policy = EgressPolicy.unrestricted()
    policy.check_url("http://169.254.169.254/")
    assert policy.refusal("x", ipaddress.ip_address("10.0.0.1"), 80) is None


async def ask(url: str, policy: EgressPolicy, **spec: object) -> tuple[str | None, str | None, str | None]:
    target_spec = parse_target_spec({"type": "http", "url": url, "timeout": 5.0, "max_attempts": 1, **spec})
    async with build_target(target_spec, policy=TargetPolicy(egress=policy)) as target:
        reply = await target.respond(TargetCase(1, "hello"))
    return reply.output, reply.error, reply.error_detail


@pytest.mark.parametrize(
    ("addresses", "words"),
    [
        (["169.254.169.254"], "link-local"),
        (["::ffff:10.0.0.1"], "loopback or private"),
        (["93.184.216.34", "127.0.0.1"], "loopback or private"),  # one bad address refuses the name
        (["fe80::1"], "link-local"),
    ],
)
async def test_every_resolved_address_is_checked_before_a_socket_opens(
    addresses: list[str], words: str
) -> None:
    with AgentServer(AgentBehaviour(default="should not be reached")) as agent:
        port = agent.url.rsplit(":", 1)[1]
        resolver = StaticResolver({"rebind.test": addresses})
        policy = EgressPolicy.for_server(allow="", listen_host="0.0.0.0", listen_port=1, has_api_key=True)
        policy = EgressPolicy(**{**_fields(policy), "resolver": resolver})
        output, error, detail = await ask(f"http://rebind.test:{port}/answer", policy)
        assert (output, error) == (None, "egress_refused")
        assert detail is not None
        assert words in detail
        assert resolver.asked == ["rebind.test"]
        assert agent.requests == []


async def test_an_allowed_name_reaches_the_agent() -> None:
    with AgentServer(AgentBehaviour(default="hi")) as agent:
        port = agent.url.rsplit(":", 1)[1]
        resolver = StaticResolver({"agent.internal": ["127.0.0.1"]})
        policy = EgressPolicy.for_server(
            allow=f"agent.internal:{port}", listen_host="0.0.0.0", listen_port=1, has_api_key=True
        )
        policy = EgressPolicy(**{**_fields(policy), "resolver": resolver})
        assert await ask(f"http://agent.internal:{port}/answer", policy) == ("hi", None, None)
        assert len(agent.requests) == 1


def _fields(policy: EgressPolicy) -> dict[str, object]:
    return {name: getattr(policy, name) for name in EgressPolicy.__dataclass_fields__}


@dataclass
class Hop:
    """A loopback web server that records what reaches it."""

    url: str = ""
    seen: list[tuple[str, dict[str, str]]] = field(default_factory=list)


Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


@pytest.fixture
async def redirect_pair() -> AsyncIterator[tuple[Hop, Hop]]:
    """``first`` on 127.0.0.1 redirects (302) every request to ``second`` on 127.0.0.2, which answers."""
    first, second = Hop(), Hop()

    async def redirect(request: web.Request) -> web.StreamResponse:
        first.seen.append((request.method, dict(request.headers)))
        raise web.HTTPFound(f"{second.url}/answer")

    async def answer(request: web.Request) -> web.StreamResponse:
        second.seen.append((request.method, dict(request.headers)))
        return web.json_response({"output": "from the second server"})

    runners = []
    for hop, host, handler in ((first, "127.0.0.1", redirect), (second, "127.0.0.2", answer)):
        app = web.Application()
        app.router.add_route("*", "/{tail:.*}", handler)
        runner = web.AppRunner(app, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, host, 0)
        await site.start()
        sockets = site._server.sockets if site._server is not None else []  # type: ignore[union-attr]
        hop.url = f"http://{host}:{sockets[0].getsockname()[1]}"
        runners.append(runner)
    yield first, second
    for runner in runners:
        await runner.cleanup()


async def test_a_redirect_is_not_followed_by_default(redirect_pair: tuple[Hop, Hop]) -> None:
    first, second = redirect_pair
    policy = EgressPolicy.for_server(
        allow="127.0.0.1", listen_host="0.0.0.0", listen_port=1, has_api_key=True
    )
    output, error, _ = await ask(f"{first.url}/answer", policy)
    assert (output, error) == (None, "http_redirect")
    assert len(first.seen) == 1
    assert second.seen == []


async def test_a_followed_redirect_is_checked_again_at_every_hop(redirect_pair: tuple[Hop, Hop]) -> None:
    first, second = redirect_pair
    policy = EgressPolicy.for_server(
        allow="127.0.0.1", listen_host="0.0.0.0", listen_port=1, has_api_key=True
    )
    output, error, detail = await ask(f"{first.url}/answer", policy, follow_redirects=True)
    assert (output, error) == (None, "egress_refused")
    assert detail is not None
    assert "127.0.0.2" in detail
    assert second.seen == []


async def test_a_redirect_to_another_origin_drops_the_headers(redirect_pair: tuple[Hop, Hop]) -> None:
    first, second = redirect_pair
    policy = EgressPolicy.for_server(
        allow="127.0.0.1, 127.0.0.2", listen_host="0.0.0.0", listen_port=1, has_api_key=True
    )
    headers = {"X-Secret": "s3cret", "Authorization": "Bearer s3cret"}
    output, error, _ = await ask(f"{first.url}/answer", policy, follow_redirects=True, headers=headers)
    assert (output, error) == ("from the second server", None)
    assert first.seen[0][1]["X-Secret"] == "s3cret"
    method, seen_headers = second.seen[0]
    assert method == "GET"  # a 302 after a POST is followed with a GET, as browsers do
    assert "s3cret" not in str(seen_headers)
