"""The egress policy on real connections: every resolved address checked before a socket opens, and
redirects. Nothing here sends a packet off loopback: names are resolved by a resolver the test controls,
refused addresses are refused before a socket opens, and the redirect servers listen on 127.0.0.1/127.0.0.2.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
from aiohttp import web

from assay.targets import EgressPolicy, TargetCase, TargetPolicy, build_target, parse_target_spec
from tests.support.agent_server import AgentBehaviour, AgentServer
from tests.support.resolver import StaticResolver


async def ask(url: str, policy: EgressPolicy, **spec: object) -> tuple[str | None, str | None, str | None]:
    target_spec = parse_target_spec({"type": "http", "url": url, "timeout": 5.0, "max_attempts": 1, **spec})
    async with build_target(target_spec, policy=TargetPolicy(egress=policy)) as target:
        reply = await target.respond(TargetCase(1, "hello"))
    return reply.output, reply.error, reply.error_detail


def _fields(policy: EgressPolicy) -> dict[str, object]:
    return {name: getattr(policy, name) for name in EgressPolicy.__dataclass_fields__}


@dataclass
class Hop:
    """A loopback web server that records what reaches it."""

    url: str = ""
    seen: list[tuple[str, dict[str, str]]] = field(default_factory=list)


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
