"""Name resolution for the HTTP client under the egress policy: every address of every connection checked."""

from __future__ import annotations

import ipaddress
import socket

from aiohttp.abc import AbstractResolver, ResolveResult
from aiohttp.resolver import ThreadedResolver

from assay.targets.egress import EgressPolicy, EgressRefusedError


class PolicyResolver(AbstractResolver):
    """Resolves through the system (or the policy's own resolver) and refuses what the policy refuses."""

    def __init__(self, policy: EgressPolicy) -> None:
        self._policy = policy
        self._inner: AbstractResolver | None = policy.resolver

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        """The addresses of ``host``, each checked; :class:`EgressRefusedError` when any one is refused."""
        if self._inner is None:
            self._inner = ThreadedResolver()
        results = await self._inner.resolve(host, port, family)
        for result in results:
            address = ipaddress.ip_address(result["host"])
            rule = self._policy.refusal(host, address, port)
            if rule is not None:
                # One refused address refuses the name: a rebinding name gets no second chance.
                raise EgressRefusedError(f"{host} resolves to {address}: {rule}")
        return results

    async def close(self) -> None:
        """Release the inner resolver (not one the policy was handed)."""
        if self._inner is not None and self._inner is not self._policy.resolver:
            await self._inner.close()


def connection_resolver(policy: EgressPolicy) -> AbstractResolver | None:
    """The resolver an HTTP client must use under ``policy`` (``None``: aiohttp's own, no rule)."""
    return PolicyResolver(policy) if policy.restricted else policy.resolver
