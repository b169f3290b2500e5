"""A name resolver a test controls: answers from a fixed table, asks no DNS."""

from __future__ import annotations

import ipaddress
import socket
from typing import Any

from aiohttp.abc import AbstractResolver, ResolveResult


class StaticResolver(AbstractResolver):
    """Answers from ``table`` (name → addresses); an ``OSError`` for a name it does not hold."""

    def __init__(self, table: dict[str, list[str]]) -> None:
        self.table = table
        self.asked: list[str] = []

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        self.asked.append(host)
        if host not in self.table:
            raise OSError(f"{host} is not in the table")
        results = []
        for text in self.table[host]:
            version = ipaddress.ip_address(text).version
            family_of = socket.AF_INET6 if version == 6 else socket.AF_INET
            result: Any = {
                "hostname": host,
                "host": text,
                "port": port,
                "family": family_of,
                "proto": 0,
                "flags": 0,
            }
            results.append(result)
        return results

    async def close(self) -> None:
        return None
