"""The egress policy: its rules and the URL checks made before any connection (real connections, every
resolved address and redirects: tests/api/test_egress_connections.py).
"""

from __future__ import annotations

import ipaddress

import pytest

from assay.targets import EgressPolicy
from assay.targets.egress import AllowRule, EgressRefusedError, parse_allow

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
