"""TypeScript vs Python: lint time per byte, side by side in one run.

    python benchmarks/bench_typescript.py [--files N] [--repeat R]

Two trees of the same shape are written to a temporary directory: N Python modules and N
TypeScript modules. A third of each are prompt code (an OpenAI call with a system prompt and a
fetched page, an MCP tool with a schema: the same logic in both languages), the rest ordinary
application code with no LLM name in it (what most of a repository is). The engine lints each
tree in one process with every rule; the script reports seconds, bytes and microseconds per
kilobyte for both, and the ratio TypeScript / Python (below 1.00: TypeScript is faster per byte).
Compare the ratio between commits; the seconds depend on the machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ctxlint.catalogue import load_catalogue  # noqa: E402
from ctxlint.config import Settings  # noqa: E402
from ctxlint.engine import Linter  # noqa: E402

PYTHON_PROMPT = '''\
import json
from datetime import datetime

import requests
from mcp.server.fastmcp import FastMCP
from openai import OpenAI

client = OpenAI()
mcp = FastMCP("shop{n}")
SYSTEM_PROMPT = """You are the shopping assistant number {n} for Northwind.
Answer from the catalogue only. Never promise delivery dates you cannot see."""


def summarise(url: str, question: str) -> str:
    page = requests.get(url, timeout=10).text
    stamp = datetime.now().isoformat()
    response = client.chat.completions.create(
        model="gpt-4o",
        max_completion_tokens=400,
        messages=[
            {{"role": "system", "content": SYSTEM_PROMPT}},
            {{"role": "user", "content": f"Page:\\n{{page[:4000]}}\\nQuestion: {{question}}\\nAt {{stamp}}"}},
        ],
    )
    return response.choices[0].message.content


@mcp.tool()
def search_catalog(query: str, limit: int = 10) -> str:
    """Search the catalogue by keyword and return matching products as JSON."""
    return json.dumps({{"query": query, "limit": limit}})
'''

TYPESCRIPT_PROMPT = '''\
import OpenAI from "openai";
import {{ McpServer }} from "@modelcontextprotocol/sdk/server/mcp.js";
import {{ z }} from "zod";

const client = new OpenAI();
const server = new McpServer({{ name: "shop{n}", version: "1.0.0" }});
const SYSTEM_PROMPT = `You are the shopping assistant number {n} for Northwind.
Answer from the catalogue only. Never promise delivery dates you cannot see.`;

export async function summarise(url: string, question: string): Promise<string | null> {{
  const page = await (await fetch(url)).text();
  const stamp = new Date().toISOString();
  const response = await client.chat.completions.create({{
    model: "gpt-4o",
    max_completion_tokens: 400,
    messages: [
      {{ role: "system", content: SYSTEM_PROMPT }},
      {{ role: "user", content: `Page:\\n${{page.slice(0, 4000)}}\\nQuestion: ${{question}}\\nAt ${{stamp}}` }},
    ],
  }});
  return response.choices[0].message.content;
}}

server.tool(
  "search_catalog",
  "Search the catalogue by keyword and return matching products as JSON.",
  {{ query: z.string(), limit: z.number().int().default(10) }},
  async ({{ query, limit }}) => ({{ content: [{{ type: "text", text: JSON.stringify({{ query, limit }}) }}] }}),
);
'''

PYTHON_PLAIN = '''\
from dataclasses import dataclass


@dataclass
class Order{n}:
    id: int
    items: list[str]
    total: float

    def add(self, item: str, price: float) -> None:
        self.items.append(item)
        self.total += price

    def describe(self) -> str:
        lines = [f"Order {{self.id}}: {{len(self.items)}} items"]
        for item in sorted(self.items):
            lines.append(f"- {{item}}")
        return "\\n".join(lines)


def total_of(orders: list[Order{n}]) -> float:
    return sum(order.total for order in orders if order.total > 0)


def by_id(orders: list[Order{n}]) -> dict[int, Order{n}]:
    return {{order.id: order for order in orders}}
'''

TYPESCRIPT_PLAIN = '''\
export interface Order{n} {{
  id: number;
  items: string[];
  total: number;
}}

export function add(order: Order{n}, item: string, price: number): void {{
  order.items.push(item);
  order.total += price;
}}

export function describe(order: Order{n}): string {{
  const lines = [`Order ${{order.id}}: ${{order.items.length}} items`];
  for (const item of [...order.items].sort()) {{
    lines.push(`- ${{item}}`);
  }}
  return lines.join("\\n");
}}

export const totalOf = (orders: Order{n}[]): number =>
  orders.filter((o) => o.total > 0).reduce((sum, o) => sum + o.total, 0);

export const byId = (orders: Order{n}[]): Map<number, Order{n}> => new Map(orders.map((o) => [o.id, o]));
'''


def write_tree(root: Path, files: int) -> dict[str, list[Path]]:
    trees: dict[str, list[Path]] = {"python": [], "typescript": []}
    for n in range(files):
        prompt = n % 3 == 0
        for language, suffix, text in (
            ("python", ".py", PYTHON_PROMPT if prompt else PYTHON_PLAIN),
            ("typescript", ".ts", TYPESCRIPT_PROMPT if prompt else TYPESCRIPT_PLAIN),
        ):
            path = root / language / f"module{n}{suffix}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text.format(n=n), encoding="utf-8")
            trees[language].append(path)
    return trees


def lint_time(linter: Linter, files: list[Path]) -> tuple[float, int]:
    start = time.perf_counter()
    result = linter.lint_files(files, jobs=1)
    elapsed = time.perf_counter() - start
    return elapsed, len(result.findings)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=300, help="modules per language (default 300)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per language; the median is reported")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="ctxlint-bench-ts-") as tmp:
        root = Path(tmp)
        trees = write_tree(root, args.files)
        linter = Linter(Settings(root=root), load_catalogue())
        for language in trees:  # warm up: imports, grammars, tokenizer
            lint_time(linter, trees[language][:3])
        rows = []
        for language, files in trees.items():
            size = sum(p.stat().st_size for p in files)
            runs = [lint_time(linter, files) for _ in range(args.repeat)]
            seconds = statistics.median(t for t, _ in runs)
            rows.append((language, len(files), size, seconds, runs[0][1]))
    print(f"{'language':<12}{'files':>7}{'bytes':>11}{'findings':>10}{'seconds':>10}{'us/KB':>9}")
    per_kb = {}
    for language, count, size, seconds, findings in rows:
        per_kb[language] = seconds * 1e6 / (size / 1024)
        print(f"{language:<12}{count:>7}{size:>11,}{findings:>10}{seconds:>10.3f}{per_kb[language]:>9.0f}")
    print(f"\nTypeScript / Python time per byte: {per_kb['typescript'] / per_kb['python']:.2f}")


if __name__ == "__main__":
    main()
