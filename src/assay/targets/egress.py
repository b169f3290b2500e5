"""The egress policy: which addresses the server may connect to on an API caller's behalf.

Every outbound call of the server (agents, and later judges) goes through one :class:`EgressPolicy`. It is
applied twice: when a target is created, to a host written as an address literal (a 422 naming the rule),
and on every connection, to each address the host name resolved to (so DNS rebinding, IPv4-mapped IPv6 and
other spellings of a refused address do not pass). The rules, first that applies:

1. never: cloud metadata names, link-local (169.254.0.0/16, fe80::/10, where the metadata services live),
   the unspecified address, multicast and broadcast, the well-known metadata addresses, and the server's
   own listening address and port;
2. a public address: allowed;
3. loopback and private ranges: allowed when the server listens on loopback without an API key (an agent
   on localhost, the local default), otherwise only when ``ASSAY_TARGET_ALLOW`` names them.

The CLI runs as its user and uses :meth:`EgressPolicy.unrestricted`. A server's policy is stored with each
evaluation it accepts (:class:`EgressSettings`): whichever process runs the evaluation runs it under that
policy, not under its own settings (a worker started without the server's API key would allow loopback).
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from assay.json_types import JsonObject

if TYPE_CHECKING:
    from aiohttp.abc import AbstractResolver

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network

METADATA_HOSTS = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "metadata.azure.com",
        "instance-data",
        "instance-data.ec2.internal",
        "metadata.tencentyun.com",
    }
)
"""Names of cloud instance-metadata services (they hand out credentials to whoever asks)."""

_ALWAYS_REFUSED: tuple[tuple[IPNetwork, str], ...] = tuple(
    (ipaddress.ip_network(network), rule)
    for network, rule in (
        ("169.254.0.0/16", "link-local addresses are never reachable from targets"),
        ("fe80::/10", "link-local addresses are never reachable from targets"),
        ("fd00:ec2::254/128", "the cloud metadata address is never reachable from targets"),
        ("100.100.100.200/32", "the cloud metadata address is never reachable from targets"),
        ("0.0.0.0/8", "the unspecified address is never reachable from targets"),
        ("::/128", "the unspecified address is never reachable from targets"),
        ("224.0.0.0/4", "multicast addresses are never reachable from targets"),
        ("ff00::/8", "multicast addresses are never reachable from targets"),
        ("255.255.255.255/32", "the broadcast address is never reachable from targets"),
    )
)
_PRIVATE_RULE = (
    "{address} is a loopback or private address, refused on a server that listens beyond loopback or "
    "has an API key; list it in ASSAY_TARGET_ALLOW to allow it"
)
_OWN_RULE = "{address} port {port} is this server's own address"
_NUMERIC_HOST = frozenset("0123456789.xXabcdefABCDEF")


class EgressRefusedError(OSError):
    """A connection the policy refuses; an ``OSError`` so that aiohttp reports it as a connection error."""

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


@dataclass(frozen=True, slots=True)
class AllowRule:
    """One entry of ``ASSAY_TARGET_ALLOW``: a network, or a host name or address with an optional port."""

    network: IPNetwork | None = None
    host: str | None = None
    port: int | None = None

    @classmethod
    def parse(cls, text: str) -> AllowRule:
        """``10.0.0.0/8``, ``10.1.2.3``, ``[fd00::1]:8080``, ``agent.internal`` or ``agent.internal:9000``."""
        entry = text.strip()
        if not entry:
            raise ValueError("an empty entry")
        if "/" in entry:
            return cls(network=ipaddress.ip_network(entry, strict=False))
        host, port = entry, None
        if entry.startswith("["):
            host, _, rest = entry[1:].partition("]")
            port = _port(rest.removeprefix(":")) if rest else None
        elif entry.count(":") == 1:
            host, _, port_text = entry.partition(":")
            port = _port(port_text)
        address = _address(host)
        if address is not None:
            return cls(network=ipaddress.ip_network(address), port=port)
        return cls(host=_normal_host(host), port=port)

    def allows(self, host: str, address: IPAddress, port: int) -> bool:
        """Whether this entry covers a connection to ``address`` (resolved from ``host``) on ``port``."""
        if self.port is not None and self.port != port:
            return False
        if self.network is not None:
            return address in self.network
        return self.host == _normal_host(host)


def _port(text: str) -> int:
    port = int(text)
    if not 0 < port < 65536:
        raise ValueError(f"port {port} is out of range")
    return port


def _normal_host(host: str) -> str:
    return host.strip().strip("[]").rstrip(".").lower()


def _address(host: str) -> IPAddress | None:
    """``host`` as an address (IPv4-mapped IPv6 as the IPv4 it maps), ``None`` for a name."""
    try:
        address = ipaddress.ip_address(_normal_host(host))
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


def parse_allow(text: str) -> tuple[AllowRule, ...]:
    """The rules of ``ASSAY_TARGET_ALLOW`` (comma-separated); ``ValueError`` naming a bad entry."""
    rules = []
    for entry in text.split(","):
        if not entry.strip():
            continue
        try:
            rules.append(AllowRule.parse(entry))
        except ValueError as exc:
            raise ValueError(f"ASSAY_TARGET_ALLOW entry '{entry.strip()}': {exc}") from None
    return tuple(rules)


@dataclass(frozen=True, slots=True, kw_only=True)
class EgressSettings:
    """What a server's policy is made of, as stored with an evaluation (JSON: :meth:`record`)."""

    allow: str = ""
    local_default: bool = False
    own_host: str | None = None
    own_port: int | None = None

    def record(self) -> JsonObject:
        """The settings as JSON."""
        return {
            "allow": self.allow,
            "local_default": self.local_default,
            "own_host": self.own_host,
            "own_port": self.own_port,
        }

    @classmethod
    def of_record(cls, record: JsonObject) -> EgressSettings:
        """The settings :meth:`record` stored; a record that is not one refuses everything private."""
        allow, local, host, port = (
            record.get(name) for name in ("allow", "local_default", "own_host", "own_port")
        )
        return cls(
            allow=allow if isinstance(allow, str) else "",
            local_default=local is True,
            own_host=host if isinstance(host, str) else None,
            own_port=port if isinstance(port, int) and not isinstance(port, bool) else None,
        )


@dataclass(frozen=True, slots=True, kw_only=True)
class EgressPolicy:
    """Where targets may connect. Immutable; built once per server from its settings."""

    allow: tuple[AllowRule, ...] = ()
    local_default: bool = True
    """Loopback and private addresses allowed (a server on loopback without a key)."""
    own_host: str | None = None
    own_port: int | None = None
    resolver: AbstractResolver | None = field(default=None, compare=False)
    """Resolves host names (tests hand in their own); ``None``: the system's resolver."""
    restricted: bool = True
    settings: EgressSettings | None = field(default=None, compare=False)
    """What a server's policy was built from (stored with the evaluations it accepts); ``None`` otherwise."""

    @classmethod
    def unrestricted(cls) -> EgressPolicy:
        """No rule at all: for the CLI, which runs as its user against what the user names."""
        return cls(restricted=False)

    @classmethod
    def for_server(
        cls, *, allow: str, listen_host: str | None, listen_port: int | None, has_api_key: bool
    ) -> EgressPolicy:
        """The policy of a server listening on ``listen_host:listen_port`` (unknown in process: loopback)."""
        listen = _address(listen_host) if listen_host not in (None, "localhost") else None
        on_loopback = listen_host in (None, "localhost") or (listen is not None and listen.is_loopback)
        settings = EgressSettings(
            allow=allow,
            local_default=on_loopback and not has_api_key,
            own_host=listen_host,
            own_port=listen_port,
        )
        return cls.of_settings(settings)

    @classmethod
    def of_settings(
        cls, settings: EgressSettings, *, resolver: AbstractResolver | None = None
    ) -> EgressPolicy:
        """The policy ``settings`` describe (``ValueError`` for a malformed allow-list)."""
        return cls(
            allow=parse_allow(settings.allow),
            local_default=settings.local_default,
            own_host=settings.own_host,
            own_port=settings.own_port,
            resolver=resolver,
            settings=settings,
        )

    def carried(self, record: JsonObject | None) -> EgressPolicy:
        """The policy stored with an evaluation (``record``), this process's resolver kept; this policy
        when nothing was stored (an evaluation of the CLI, or stored before policies were)."""
        if record is None:
            return self
        try:
            return EgressPolicy.of_settings(EgressSettings.of_record(record), resolver=self.resolver)
        except ValueError:  # an allow-list this version cannot read: allow no private address at all
            return EgressPolicy(local_default=False, resolver=self.resolver)

    def refusal(self, host: str, address: IPAddress, port: int) -> str | None:
        """Why a connection to ``address`` (from ``host``) on ``port`` is refused; ``None`` when allowed."""
        if not self.restricted:
            return None
        if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
            address = address.ipv4_mapped
        if _normal_host(host) in METADATA_HOSTS:
            return f"{host} is a cloud metadata service, never reachable from targets"
        for network, rule in _ALWAYS_REFUSED:
            if address.version == network.version and address in network:
                return rule
        if address.is_link_local or address.is_multicast or address.is_unspecified:
            return "link-local, multicast and unspecified addresses are never reachable from targets"
        if self._is_own(address, port):
            return _OWN_RULE.format(address=address, port=port)
        if address.is_global:
            return None
        if self.local_default or any(rule.allows(host, address, port) for rule in self.allow):
            return None
        return _PRIVATE_RULE.format(address=address)

    def _is_own(self, address: IPAddress, port: int) -> bool:
        if self.own_port is None or port != self.own_port:
            return False
        own = _address(self.own_host) if self.own_host else None
        if own is None or own.is_unspecified:
            # Listening on every interface (or by name): any local-looking address may be this server.
            return address.is_loopback or address.is_private
        return address == own or (own.is_loopback and address.is_loopback)

    def check_url(self, url: str) -> None:
        """Refuse, before any connection, what the URL itself shows: credentials, a metadata name, a
        numeric host that is not a canonical address, or a literal address the rules refuse."""
        if not self.restricted:
            return
        from yarl import URL  # when a URL is checked: a recorded or local target has none

        try:
            parsed = URL(url)
        except Exception as exc:  # a host it cannot encode (IDNA), a port that is no number, IndexError...
            raise EgressRefusedError(f"not a valid URL: {exc}") from None
        host = parsed.raw_host or ""
        if parsed.raw_user is not None or parsed.raw_password is not None:
            raise EgressRefusedError("credentials in a target URL are refused; send them in a header")
        if _normal_host(host) in METADATA_HOSTS:
            raise EgressRefusedError(f"{host} is a cloud metadata service, never reachable from targets")
        address = _address(host)
        if address is None:
            if host and set(host) <= _NUMERIC_HOST and host[0].isdigit():
                raise EgressRefusedError(f"{host} is not a canonical IP address")
            return  # a name: checked on every connection, as resolved
        port = parsed.port or (443 if parsed.scheme == "https" else 80)
        rule = self.refusal(host, address, port)
        if rule is not None:
            raise EgressRefusedError(rule)
