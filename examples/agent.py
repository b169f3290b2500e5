"""A toy agent for the examples: `assay run ... --python agent:answer` (run from this folder), or served over
HTTP with `python agent.py 9000` for `--target-url http://127.0.0.1:9000/answer`.

The HTTP contract Assay speaks: it POSTs `{"input": "<the case's input>"}` as JSON and reads the answer from
the reply's `output` field (`--response-path` names another; `--response-path ""` takes a plain-text reply
whole).
"""

from __future__ import annotations

import json
import re
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

SUPPORT = {
    "Sunday": "No",
    "shipping": "Shipping to France costs $4.99.",
    "return": "You have 30 days.",
    "warehouse": "Our warehouse is in Lyon.",
}
CAPITALS = {
    "France": "Paris",
    "Italie": "Rome",
    "Australia": "Canberra",
    "Japón": "Tokio",
    "Canada": "Ottawa",
}


def answer(question: str) -> str:
    """Arithmetic is computed; a support question gets its canned reply; a capital question is answered yes
    or no (in the question's language)."""
    sum_like = re.fullmatch(r"What is ([\d.]+) (\+|\*|/|\*\*) ([\d.]+)\?", question)
    if sum_like:
        left, operator, right = float(sum_like[1]), sum_like[2], float(sum_like[3])
        value = {"+": left + right, "*": left * right, "/": left / right, "**": left**right}[operator]
        return f"{value:g}"
    for word, reply in SUPPORT.items():
        if word in question:
            return reply
    for country, capital in CAPITALS.items():
        if country in question:
            yes = capital in question
            if "est-elle" in question:
                return "oui" if yes else "non"
            if question.startswith("¿"):
                return "sí" if yes else "no"
            return "yes" if yes else "no"
    return "I don't know"


class _Handler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))))
        reply = json.dumps({"output": answer(body["input"])}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)


if __name__ == "__main__":
    HTTPServer(("127.0.0.1", int(sys.argv[1]) if len(sys.argv) > 1 else 9000), _Handler).serve_forever()
