"""An MCP server written against the low-level SDK: tools declared as mcp.types.Tool."""

import json

from mcp.server import Server
from mcp import types

server = Server("inventory")

FIELDS = {column: "string" for column in {"sku", "warehouse", "bin"}}


@server.list_tools()
async def list_tools() -> list[types.Tool]:
    return [
        types.Tool(
            name="lookup_stock",
            description="Look up stock levels for a SKU.",
            inputSchema={
                "type": "object",
                "properties": {"sku": {"type": "string", "description": "Stock keeping unit"}},
                "required": ["sku"],
            },
        ),
        types.Tool(
            name="export_report",
            description=f"Export a stock report with these fields: {json.dumps(FIELDS)}",
            inputSchema={"type": "object", "properties": {}},
        ),
    ]


@server.call_tool()
async def call_tool(name: str, arguments: dict) -> list[types.TextContent]:
    return [types.TextContent(type="text", text=json.dumps({"name": name, "ok": True}))]
